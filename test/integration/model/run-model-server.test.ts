import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { runModelServer } from "../../../src/model/scripted/index.js";

describe("runModelServer", () => {
  it.each(["SIGTERM", "SIGINT"] as const)("prints its URL, serves, and closes on %s", async (signal) => {
    const lines: string[] = [];
    const signals = new EventEmitter();
    const running = await runModelServer({
      port: 0,
      log: (line) => lines.push(line),
      signalSource: signals as unknown as Pick<NodeJS.Process, "once" | "off">,
    });
    expect(lines).toEqual([`tollgate scripted model listening on ${running.model.url}`]);
    expect((await fetch(`${running.model.url}/models`)).status).toBe(200);

    signals.emit(signal);
    await running.closed;

    await expect(fetch(`${running.model.url}/models`)).rejects.toThrow();
    expect(signals.listenerCount("SIGTERM") + signals.listenerCount("SIGINT")).toBe(0);
  });

  it("closes once when stopped directly", async () => {
    const signals = new EventEmitter();
    const running = await runModelServer({
      log: () => undefined,
      signalSource: signals as unknown as Pick<NodeJS.Process, "once" | "off">,
    });
    await Promise.all([running.stop(), running.stop()]);
    await running.closed;
    expect(signals.listenerCount("SIGTERM")).toBe(0);
  });
});
