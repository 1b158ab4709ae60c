export type { IRecordedModelRequest } from "./recorded-requests.js";
export {
  type IRunModelServerOptions,
  type IRunningModelServer,
  runModelServer,
} from "./run-model-server.js";
export {
  ECHO_PREFIX,
  NO_TOOLS_PREFIX,
  SCRIPT_END_PREFIX,
} from "./script-interpreter.js";
export {
  type IScriptedModel,
  type IScriptedModelOptions,
  startScriptedModel,
} from "./scripted-model-server.js";
