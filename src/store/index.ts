export {
  approvalDecisionSchema,
  approvalRequestSchema,
  type IApproval,
  type TApprovalDecision,
  type TApprovalRequest,
  type TApprovalStatus,
} from "./approval-record.js";
export { ApprovalStore, type IApprovalFilter } from "./approval-store.js";
export { EventStore } from "./event-store.js";
export { type IKeys, keysFor } from "./keys.js";
export {
  connectionUsable,
  createRedis,
  dataNodes,
  defineScripts,
  type ITollgateRedis,
  type TConnectionRole,
} from "./redis-client.js";
export {
  describeRedisTarget,
  type IHostPort,
  parseHostPort,
  prefixHasHashTag,
  redisTargetFrom,
  type TRedisTarget,
} from "./redis-target.js";
export type { IRunEvent, IRunEventInput, TRunEventType } from "./run-events.js";
export { type IRunStoreOptions, type IStoredRun, RunStore } from "./run-store.js";
export { ThreadStore } from "./thread-store.js";
