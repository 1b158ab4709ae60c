/** What a listing of approvals may ask for: `pending`; `decided` (any final status); or one final status. */
export const approvalListStatuses = [
  "pending",
  "decided",
  "approved",
  "rejected",
  "refused",
  "expired",
  "cancelled",
] as const;
export type TApprovalListStatus = (typeof approvalListStatuses)[number];
