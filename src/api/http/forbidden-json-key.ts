/** A key the API refuses in a JSON body, and where it is. */
export interface IForbiddenJsonKey {
  /** `__proto__`, or `constructor.prototype`. */
  key: string;
  /** Its path from the body's root, dot-separated (array items by index); the root's own key is `__proto__`. */
  path: string;
}

/** How many segments of a path an answer shows: enough to find it, bounded whatever the nesting. */
const maxPathSegments = 32;

interface IVisit {
  value: unknown;
  key: string | undefined;
  parent: IVisit | undefined;
}

/**
 * The first key a reader that copies objects by assignment would turn into a prototype change: an own
 * `__proto__` key, or a `constructor` object with an own `prototype` key (what fastify's parser,
 * secure-json-parse, refuses). `JSON.parse` itself makes them plain own keys; the danger is in whoever
 * copies them next. Iterative, with parent links rather than path copies, so that a body nested 500,000
 * deep costs one walk.
 */
export function forbiddenJsonKey(value: unknown): IForbiddenJsonKey | undefined {
  const pending: IVisit[] = [{ value, key: undefined, parent: undefined }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const node = next.value;
    if (typeof node !== "object" || node === null) continue;
    if (Object.hasOwn(node, "__proto__")) return { key: "__proto__", path: pathOf(next, "__proto__") };
    const constructorValue = (node as Record<string, unknown>).constructor;
    if (
      Object.hasOwn(node, "constructor") &&
      typeof constructorValue === "object" &&
      constructorValue !== null &&
      Object.hasOwn(constructorValue, "prototype")
    ) {
      return { key: "constructor.prototype", path: pathOf(next, "constructor.prototype") };
    }
    for (const [key, child] of Object.entries(node)) pending.push({ value: child, key, parent: next });
  }
  return undefined;
}

function pathOf(visit: IVisit, last: string): string {
  const segments: string[] = [last];
  for (let at: IVisit | undefined = visit; at?.key !== undefined; at = at.parent) segments.push(at.key);
  segments.reverse();
  return segments.length > maxPathSegments
    ? `…${segments.slice(-maxPathSegments).join(".")}`
    : segments.join(".");
}
