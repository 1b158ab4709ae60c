export { createApprovalProcessor } from "./approval-processor.js";
export { describeNamedModels, type INamedModelSummary } from "./named-models.js";
export { createRunProcessor } from "./run-processor.js";
export { type IStartWorkerOptions, type ITollgateWorker, startWorker } from "./start-worker.js";
export { createToolProcessor } from "./tool-processor.js";
export { WorkerReadiness } from "./worker-readiness.js";
