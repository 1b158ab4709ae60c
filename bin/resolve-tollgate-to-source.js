// A module resolve hook, registered by bin/tollgate.js when the CLI runs from the TypeScript source: the
// bare specifier "tollgate" (what examples/ and users' gateways import) resolves to src/index.ts instead of
// package.json's exports (dist/), so the gateway and the CLI share one copy of the library.
const source = new URL("../src/index.ts", import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  // Passed on rather than answered here: tsx's resolve marks the .ts file for its loader.
  return nextResolve(specifier === "tollgate" ? source : specifier, context);
}
