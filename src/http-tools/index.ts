export { isRestrictedAddress } from "./address-check.js";
export {
  checkedLookup,
  RestrictedAddressError,
  resolveWithSystem,
  type TResolveHost,
} from "./checked-lookup.js";
export { httpTool, type IHttpToolDefinition, type IHttpToolOptions } from "./http-tool.js";
export { HttpToolFailure, type THttpToolFailureReason } from "./http-tool-failure.js";
export {
  defaultMaxResponseBytes,
  httpToolSettingsSchema,
  maxHttpToolRedirects,
  type THttpToolSettings,
  type THttpToolSettingsInput,
} from "./http-tool-settings.js";
export { readToolAnswer } from "./read-tool-answer.js";
export { type IHttpToolAnswer, type IHttpToolRequest, sendHttpRequest } from "./send-http-request.js";
