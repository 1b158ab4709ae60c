const stopSignals = ["SIGTERM", "SIGINT"] as const;

/**
 * Resolves on the first SIGTERM or SIGINT. Its listeners are removed then, so a second signal gets
 * Node's default handling and ends the process at once: the way out of a shutdown that hangs.
 */
export function waitForStopSignal(
  signalSource: Pick<NodeJS.Process, "once" | "off"> = process,
): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      for (const name of stopSignals) signalSource.off(name, onSignal);
      resolve(signal);
    };
    for (const name of stopSignals) signalSource.once(name, onSignal);
  });
}

/** Calls `handler` on the first SIGTERM or SIGINT until the returned function is called. */
export function onStopSignal(
  handler: (signal: NodeJS.Signals) => void,
  signalSource: Pick<NodeJS.Process, "once" | "off"> = process,
): () => void {
  const onSignal = (signal: NodeJS.Signals) => {
    dispose();
    handler(signal);
  };
  const dispose = () => {
    for (const name of stopSignals) signalSource.off(name, onSignal);
  };
  for (const name of stopSignals) signalSource.once(name, onSignal);
  return dispose;
}
