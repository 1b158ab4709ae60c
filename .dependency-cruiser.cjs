/**
 * Import rules. The pure core (contracts, errors, tools, policy, engine, gateway, output) does no I/O: it imports
 * nothing from the shell and no Redis, BullMQ, HTTP or clock-driven library. Effects are decided in the
 * engine only: outside it, code reaches the engine through src/engine/index.ts, which exports the run
 * loop and no transition. Shapes shared by the API, the store and the engine live in src/contracts, so
 * the API reaches neither the store nor the engine and the store does not reach the engine. Isolation
 * (worker threads, child processes) is shell. Nothing imports in a cycle.
 */
const core = "^src/(contracts|tools|policy|engine|errors|gateway|output)/";
const shell =
  "^src/(model|producer|workers|store|queue|api|observability|cli|config|runtime|notifications|slack|links|isolation|http-tools|mcp)/";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "Imports flow one way; a cycle means two modules are one concept or the layering is wrong.",
      from: {},
      to: { circular: true },
    },
    {
      name: "core-imports-no-shell",
      severity: "error",
      comment: "The pure core must not depend on the shell (workers, store, api, model, cli, ...).",
      from: { path: core },
      to: { path: shell },
    },
    {
      name: "core-imports-no-io-libraries",
      severity: "error",
      comment: "The pure core does no I/O: no Redis, BullMQ, HTTP server, model SDK, logger or metrics.",
      from: { path: core },
      to: {
        dependencyTypes: ["npm", "npm-dev", "npm-optional", "npm-peer", "core"],
        // Pure libraries: schemas and errors; ajv compiles and runs JSON Schemas in memory (no schema is fetched),
        // regexpp reads their patterns and re2js runs them. node:module's createRequire loads them on first use;
        // the next rule keeps it to that one file.
        pathNot: "node_modules/(zod|ajv|ajv-formats|re2js|@eslint-community/regexpp)/|^module$",
      },
    },
    {
      name: "core-requires-ajv-only",
      severity: "error",
      comment:
        "In the core, createRequire (node:module) serves load-ajv.ts alone: ajv, loaded at the first JSON Schema compiled, so that a worker compiling none never loads it.",
      from: { path: core, pathNot: "^src/tools/load-ajv\\.ts$" },
      to: { path: "^module$" },
    },
    {
      name: "effects-decided-in-the-engine-only",
      severity: "error",
      comment:
        "Transitions and their effects are the engine's: the shell runs them through interpretRun, imported from src/engine/index.ts.",
      from: { path: "^src/", pathNot: "^src/engine/" },
      to: { path: "^src/engine/", pathNot: "^src/engine/index\\.ts$" },
    },
    {
      name: "api-imports-no-store-or-engine",
      severity: "error",
      comment:
        "The API validates and answers with the shapes in src/contracts and acts through src/producer: it neither reads the store nor runs the engine itself.",
      from: { path: "^src/api/" },
      to: { path: "^src/(store|engine)/" },
    },
    {
      name: "store-imports-no-engine",
      severity: "error",
      comment:
        "The store keeps what src/contracts defines; it takes no shape or transition from the engine, so the engine can change without the stored format moving.",
      from: { path: "^src/store/" },
      to: { path: "^src/engine/" },
    },
    {
      name: "runtime-behind-the-handles",
      severity: "error",
      comment:
        "A GatewayClient's and a worker's runtimes are not public: the client and its narrow port (client-port.ts) read the client's registry, startWorker the worker's; the API, links and CLI use the port. Tests reach both through test/helpers/internals.ts.",
      from: {
        path: "^src/",
        pathNot:
          "^src/(producer/(gateway-client|client-port|client-internals)|workers/(start-worker|worker-internals))\\.ts$",
      },
      to: { path: "^src/(producer/client-internals|workers/worker-internals)\\.ts$" },
    },
    {
      name: "not-to-unresolvable",
      severity: "error",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
    },
  },
};
