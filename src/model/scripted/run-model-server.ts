import {
  type IScriptedModel,
  type IScriptedModelOptions,
  startScriptedModel,
} from "./scripted-model-server.js";

export interface IRunModelServerOptions extends IScriptedModelOptions {
  /** Where the URL line goes. @defaultValue a line on stdout */
  log?: (line: string) => void;
  /** Whose SIGTERM/SIGINT stop the server. @defaultValue process */
  signalSource?: Pick<NodeJS.Process, "once" | "off">;
}

export interface IRunningModelServer {
  model: IScriptedModel;
  /** Resolves once the server has closed, after SIGTERM, SIGINT or `stop()`. */
  closed: Promise<void>;
  stop(): Promise<void>;
}

const stopSignals = ["SIGTERM", "SIGINT"] as const;

/**
 * For `tollgate model-server --port N`: starts the scripted model, prints its URL, and closes it on
 * SIGTERM/SIGINT. It does not call process.exit: once closed, nothing keeps the event loop alive.
 */
export async function runModelServer(options: IRunModelServerOptions = {}): Promise<IRunningModelServer> {
  const model = await startScriptedModel(options);
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const signalSource = options.signalSource ?? process;
  let settleClosed: { resolve: () => void; reject: (error: unknown) => void } | undefined;
  const closed = new Promise<void>((resolve, reject) => {
    settleClosed = { resolve, reject };
  });
  let closing: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    if (closing === undefined) {
      for (const signal of stopSignals) {
        signalSource.off(signal, onStopSignal);
      }
      closing = model.close();
      closing.then(settleClosed?.resolve, settleClosed?.reject);
    }
    return closing;
  };
  const onStopSignal = (): void => {
    // A failure to close reaches whoever awaits `closed`.
    stop().catch(() => undefined);
  };
  for (const signal of stopSignals) {
    signalSource.once(signal, onStopSignal);
  }
  log(`tollgate scripted model listening on ${model.url}`);
  return { model, closed, stop };
}
