/**
 * The entry of an isolation thread or child process: imports the gateway module once and runs the named
 * tool's execute for each request. It is terminated (thread) or killed (process) when a call passes its
 * timeout, so the signal it hands to execute never aborts: the pool replaces it instead.
 */
import { isMainThread, parentPort, workerData } from "node:worker_threads";
import { type IGateway, isGateway } from "../gateway/index.js";
import {
  type IIsolatedRequest,
  type ISerializedToolError,
  serializeToolError,
  type TIsolatedReply,
} from "./isolation-messages.js";

const gatewayModule: string = isMainThread
  ? (process.argv[2] ?? "")
  : (workerData as { gatewayModule: string }).gatewayModule;
let gatewayLoad: Promise<IGateway> | undefined;

async function loadGateway(): Promise<IGateway> {
  const loaded = (await import(gatewayModule)) as { default?: unknown };
  const outer = loaded.default;
  const gateway = isGateway(outer) ? outer : (outer as { default?: unknown } | undefined)?.default;
  if (!isGateway(gateway)) {
    throw new Error(`${gatewayModule} has no default export made by defineGateway()`);
  }
  return gateway;
}

async function handle(request: IIsolatedRequest): Promise<TIsolatedReply> {
  try {
    gatewayLoad ??= loadGateway();
    const gateway = await gatewayLoad;
    const tool = gateway.catalogue.get(request.toolName);
    if (!tool) throw new Error(`the gateway module has no tool named ${request.toolName}`);
    const { input, threadId, userContext, callId, runId } = request;
    const abortSignal = new AbortController().signal;
    const output = await tool.execute({ input, abortSignal, threadId, userContext, callId, runId });
    return { id: request.id, ok: true, output };
  } catch (error) {
    return { id: request.id, ok: false, error: serializeToolError(error) };
  }
}

/** An output structured clone cannot carry (a function, a class with private state) is the tool's error. */
function notCloneable(id: number, error: unknown): TIsolatedReply {
  const detail = error instanceof Error ? error.message : String(error);
  const serialized: ISerializedToolError = {
    wasError: true,
    fields: { message: `The tool's output could not be sent back from its isolation: ${detail}` },
  };
  return { id, ok: false, error: serialized };
}

/** Loads the gateway at start, then says so: the pool hands calls only to a warm host. */
function announceReady(
  send: (message: { ready: true } | { ready: false; error: ISerializedToolError }) => void,
) {
  gatewayLoad ??= loadGateway();
  gatewayLoad.then(
    () => send({ ready: true }),
    (error: unknown) => send({ ready: false, error: serializeToolError(error) }),
  );
}

if (!isMainThread && parentPort) {
  const port = parentPort;
  announceReady((message) => port.postMessage(message));
  port.on("message", (request: IIsolatedRequest) => {
    void handle(request).then((reply) => {
      try {
        port.postMessage(reply);
      } catch (error) {
        port.postMessage(notCloneable(request.id, error));
      }
    });
  });
} else if (process.send) {
  // The worker that forked this process is gone: nothing will ask again.
  process.on("disconnect", () => process.exit(0));
  announceReady((message) => process.send?.(message));
  process.on("message", (request: IIsolatedRequest) => {
    void handle(request).then((reply) => {
      try {
        process.send?.(reply);
      } catch (error) {
        process.send?.(notCloneable(request.id, error));
      }
    });
  });
}
