// What `require("tollgate")` loads (the "require" condition of package.json's exports). Tollgate is an
// ES module, and Node 20 cannot require() one: without this file the caller would read only
// ERR_PACKAGE_PATH_NOT_EXPORTED, which says nothing about the way out. The code is Node's own for this case.
const error = new Error(
  [
    "tollgate is an ES module and cannot be loaded with require().",
    'From CommonJS, load it with `const { defineGateway } = await import("tollgate")`;',
    'or make the file an ES module: name it .mjs (or .mts), or add "type": "module" to your package.json,',
    'and write `import { defineGateway } from "tollgate"`. A gateway module is then `export default defineGateway({ ... })`.',
  ].join(" "),
);
error.code = "ERR_REQUIRE_ESM";
throw error;
