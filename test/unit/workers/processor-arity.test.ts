import type { Job } from "bullmq";
import { describe, expect, it } from "vitest";
import type { ITracing } from "../../../src/observability/tracing/index.js";
import type { ITollgateRuntime } from "../../../src/runtime/runtime.js";
import { ActiveJobs } from "../../../src/workers/hand-back-shutdown.js";
import { withArityOf } from "../../../src/workers/processor-arity.js";
import {
  tracedApprovalProcessor,
  tracedRunProcessor,
  tracedToolProcessor,
} from "../../../src/workers/traced-processors.js";

/**
 * BullMQ reads `processor.length` once (>= 3: it makes an AbortController for every job). Each wrapper
 * declares a signal exactly when the processor it wraps does, and passes the signal on.
 */
describe("processor wrappers keep the wrapped processor's arity", () => {
  const withoutSignal = async (_job: Job, _token?: string) => "no signal";
  const withSignal = async (_job: Job, _token?: string, signal?: AbortSignal) => signal;
  const runtime = {} as ITollgateRuntime;
  const tracing = {} as ITracing;

  it("the traced and tracked wrappers", () => {
    expect(tracedRunProcessor(runtime, withoutSignal).length).toBe(2);
    expect(tracedRunProcessor(runtime, withSignal).length).toBe(3);
    expect(tracedApprovalProcessor(runtime, tracing, withoutSignal as never).length).toBe(2);
    expect(tracedToolProcessor(tracing, withSignal as never).length).toBe(3);
    const active = new ActiveJobs();
    expect(active.track(withoutSignal).length).toBe(2);
    expect(active.track(withSignal).length).toBe(3);
    expect(active.track(active.track(withoutSignal)).length).toBe(2);
  });

  it("passes the signal on to a processor that takes it", async () => {
    const signal = new AbortController().signal;
    const job = { queueName: "q", id: "1" } as Job;
    expect(await new ActiveJobs().track(withSignal)(job, "token", signal)).toBe(signal);
    const wrapped = withArityOf<typeof withoutSignal>(withoutSignal, (job, token) =>
      withoutSignal(job, token),
    );
    expect(await wrapped(job, "token")).toBe("no signal");
  });
});
