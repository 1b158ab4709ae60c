import { fork } from "node:child_process";
import { Worker } from "node:worker_threads";
import { hostUrl, needsTypeScript, threadBootstrap, tsxLoaderUrl } from "./isolation-loader.js";
import type { IIsolatedRequest, THostReady, TIsolatedReply } from "./isolation-messages.js";

/** One thread or child process that runs one call at a time. */
export interface IIsolationSlot {
  send(request: IIsolatedRequest): void;
  /** Called with every message (ready, then replies), and once with an error when it ends. */
  listen(onMessage: (message: TIsolatedReply | THostReady) => void, onExit: (error: Error) => void): void;
  /** Stops it at once, whatever it is doing. */
  terminate(): void;
}

export function startThreadSlot(gatewayModule: string): IIsolationSlot {
  const worker = new Worker(threadBootstrap(gatewayModule), { eval: true, workerData: { gatewayModule } });
  // An idle thread must not keep the worker process alive once everything else closed.
  worker.unref();
  return {
    send: (request) => worker.postMessage(request),
    listen(onReply, onExit) {
      worker.on("message", onReply);
      worker.on("error", (error) => onExit(error));
      worker.on("exit", (code) => onExit(new Error(`The tool's thread exited (code ${code}).`)));
    },
    terminate: () => void worker.terminate(),
  };
}

export function startProcessSlot(gatewayModule: string): IIsolationSlot {
  const child = fork(new URL(hostUrl), [gatewayModule], {
    execArgv: needsTypeScript(gatewayModule) ? ["--import", tsxLoaderUrl()] : [],
    // Structured clone, as for threads: the same values cross either boundary.
    serialization: "advanced",
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  child.unref();
  child.channel?.unref();
  return {
    send: (request) => child.send(request),
    listen(onReply, onExit) {
      child.on("message", (message) => onReply(message as TIsolatedReply | THostReady));
      child.on("error", (error) => onExit(error));
      child.on("exit", (code, signal) =>
        onExit(new Error(`The tool's process exited (${signal ?? `code ${code}`}).`)),
      );
    },
    terminate: () => void child.kill("SIGKILL"),
  };
}
