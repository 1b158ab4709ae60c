import { buildOpenApiDocument } from "../../src/api/index.js";
import { describeProblems, redoclyLint } from "./redocly-lint.js";

/*
 * `npm run lint:openapi`: Redocly's recommended rules on the document GET /v1/openapi.json serves (with the
 * default settings; test/integration/api/openapi.test.ts checks the served one is this one). Exits 1 on
 * any error or warning.
 */
const report = await redoclyLint(buildOpenApiDocument());
for (const line of describeProblems(report)) process.stdout.write(`${line}\n`);
const { errors, warnings } = report.totals;
process.stdout.write(`GET /v1/openapi.json: ${errors} errors, ${warnings} warnings (Redocly, recommended)\n`);
process.exitCode = errors + warnings === 0 ? 0 : 1;
