/*
 * Test-only accessors of what the public handles hide: a GatewayClient's partitions' runtimes and a
 * worker's runtimes and BullMQ workers. Tests reach into Redis and BullMQ through these; services
 * cannot (the modules are not exported from src/index.ts, and .dependency-cruiser.cjs keeps the rest
 * of src/ away from them).
 */
export { clientInternals } from "../../src/producer/client-internals.js";
export { workerInternals } from "../../src/workers/worker-internals.js";
