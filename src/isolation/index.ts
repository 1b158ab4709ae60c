export { createIsolatedRunner, type IIsolatedRunner } from "./isolated-runner.js";
export { gatewayModuleUrl } from "./isolation-loader.js";
