export {
  approvalIdOfJob,
  approvalJobResultSchema,
  approvalJobSchema,
  runJobSchema,
  scheduleTickJobSchema,
  slimRunJobData,
  type TApprovalJob,
  type TApprovalJobResult,
  type TRunJob,
  type TScheduleTickJob,
  type TToolJob,
  type TToolJobInput,
  type TToolJobResult,
  toolJobResultSchema,
  toolJobSchema,
} from "../contracts/index.js";
export { allQueueNames, deadlineJobIdOf, queueNames, runJobNames, type TQueueName } from "./queue-names.js";
