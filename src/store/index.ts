// The stored approval's shape is defined in src/contracts; passed on here for the store's users.
export {
  approvalDecisionSchema,
  approvalListStatuses,
  approvalQuorumSchema,
  approvalRecordVersion,
  approvalRequestSchema,
  approvalViewSchema,
  type IApproval,
  storedApprovalRequestSchema,
  type TApprovalDecisionRecord,
  type TApprovalListStatus,
  type TApprovalQuorum,
  type TApprovalRequest,
  type TApprovalStatus,
  type TCancelReason,
  type TQuorumVote,
} from "../contracts/index.js";
export {
  ApprovalEventLog,
  approvalEventJson,
  approvalEventTypeOf,
  toStoredApprovalEvent,
} from "./approval-event-log.js";
export type { IApprovalPage, IApprovalQuery } from "./approval-listing.js";
export { type IQuorumState, quorumViewOf } from "./approval-quorum.js";
export {
  ApprovalStore,
  defineCreateApprovalCommand,
  defineDecideCommands,
  type IApprovalFilter,
  type IApprovalPlacement,
  type IDecisionEvents,
  pendingWithQuorum,
  type TDecideResult,
} from "./approval-store.js";
export { ApprovalVotes, type TVoteRequest, type TVoteResult } from "./approval-votes.js";
export { EventStore, streamEntriesBytes, type TStreamEntry, toRunEvent } from "./event-store.js";
export { clusterSlotCount, hashSlotOf } from "./hash-slot.js";
export { inputHashOf } from "./input-hash.js";
export {
  type IKeys,
  type IThreadRef,
  keysFor,
  type TApprovalIndexDimension,
  type TApprovalIndexState,
  type TRunIndexDimension,
} from "./keys.js";
export { defineLuaCommand, type ILuaCommand } from "./lua-command.js";
export { McpToolDirectory } from "./mcp-tool-directory.js";
export { type IModelPauseMessage, ModelPauses } from "./model-pauses.js";
export {
  basePartition,
  hashIndexOf,
  type IPartition,
  layoutPartitions,
  maxPartitions,
  namesPartition,
  partitionByName,
  partitionNamedBy,
  partitionOf,
  partitionPrefix,
} from "./partition-layout.js";
export { remainingRedisBudgetMs, withRedisBudget } from "./redis-budget.js";
export {
  connectionUsable,
  createRedis,
  dataNodes,
  defineScripts,
  type ITollgateRedis,
  keySlot,
  nodeServingSlot,
  type TConnectionRole,
} from "./redis-client.js";
export { type IRedisContactState, RedisContact } from "./redis-contact.js";
export { isRedisUnavailableError } from "./redis-failure.js";
export { whenRedisReady } from "./redis-ready.js";
export {
  describeRedisTarget,
  type IHostPort,
  parseHostPort,
  prefixHasHashTag,
  redisTargetFrom,
  type TRedisTarget,
} from "./redis-target.js";
export { eventJson, type IRunEvent, type IRunEventInput, type TRunEventType } from "./run-events.js";
export { runIndexGraceMs } from "./run-index-times.js";
export {
  decodeRunCursor,
  encodeRunCursor,
  type IRunIndexRead,
  type IRunPosition,
  type IRunQuery,
  precedes,
  readRunIndexes,
} from "./run-listing.js";
export {
  defineCheckpointCommand,
  defineCreateRunCommand,
  type ICarriedState,
  type IParentFence,
  type IRunCreateTransaction,
  type IRunJobPayloadSwap,
  type IRunStoreOptions,
  type IStoredRun,
  isCarriedConflict,
  RunStore,
} from "./run-store.js";
export {
  type ICountedSchedule,
  type IScheduleLimits,
  ScheduleAllowance,
  type TScheduleCount,
} from "./schedule-allowance.js";
export {
  type ISchedulePosition,
  type IStoredSchedule,
  ScheduleStore,
  scheduleClaimGraceMs,
  schedulePrecedes,
  scheduleTicksMaxLength,
  type TTickClaim,
} from "./schedule-store.js";
export { compareStreamIds, parseStreamId } from "./stream-ids.js";
export { defaultTenant, TenantLimits } from "./tenant-limits.js";
export { TextDeltaLog, type TTextDeltaAppend } from "./text-delta-log.js";
export { ThreadStore, threadOfRun } from "./thread-store.js";
export { pinnedToolListTtlSeconds, ToolListStore } from "./tool-list-store.js";
export { type IUsageCount, UsageStore, usageDayOf } from "./usage-store.js";
