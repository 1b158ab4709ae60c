export { errorCatalogue, type TErrorCode } from "./catalogue.js";
export { type IFieldIssue, type ITollgateErrorDetails, TollgateError } from "./tollgate-error.js";
export { describeFieldIssues, toFieldIssues } from "./zod-issues.js";
