export { errorCatalogue, type TErrorCode } from "./catalogue.js";
export { nearestKey } from "./nearest-key.js";
export { type IFieldIssue, type ITollgateErrorDetails, TollgateError } from "./tollgate-error.js";
export {
  assertKnownKeys,
  joinKeyPath,
  toConfigIssues,
  unknownKeyIssues,
  unknownKeyMessage,
  unknownKeysErrorMap,
} from "./unknown-keys.js";
export { describeFieldIssues, fieldIssuesOf, toFieldIssues } from "./zod-issues.js";
