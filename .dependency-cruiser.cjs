/**
 * Import rules. The pure core (contracts, tools, policy, engine, errors) does no I/O: it imports
 * nothing from the shell and no Redis, BullMQ, HTTP or clock-driven library. Nothing imports in a cycle.
 */
const core = "^src/(contracts|tools|policy|engine|errors|gateway)/";
const shell = "^src/(model|producer|workers|store|queue|api|observability|cli|config|runtime)/";

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
        pathNot: "node_modules/(zod|dyna-error)/",
      },
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
