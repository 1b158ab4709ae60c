import type { IScriptedModel, IScriptedModelOptions } from "./scripted/scripted-model-server.js";

// What the package's root exports of the scripted model server. Every gateway file imports the root, so
// every `tollgate worker` loads it; the server's modules (a worker never runs one) load at the first call.

export type { IScriptedModel, IScriptedModelOptions } from "./scripted/scripted-model-server.js";

/** Starts the scripted model server (see scripted/scripted-model-server.ts); loads it at its first call. */
export async function startScriptedModel(options: IScriptedModelOptions = {}): Promise<IScriptedModel> {
  return (await import("./scripted/scripted-model-server.js")).startScriptedModel(options);
}
