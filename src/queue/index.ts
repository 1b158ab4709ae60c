export {
  approvalIdOfJob,
  approvalJobSchema,
  runJobSchema,
  type TApprovalJob,
  type TRunJob,
  type TToolJob,
  type TToolJobInput,
  toolJobSchema,
} from "./job-payloads.js";
export {
  approvalJobResultSchema,
  type TApprovalJobResult,
  type TToolJobResult,
  toolJobResultSchema,
} from "./job-results.js";
export { allQueueNames, deadlineJobIdOf, queueNames, runJobNames, type TQueueName } from "./queue-names.js";
