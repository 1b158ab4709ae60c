// The changes from an original input to an edited one, as JSON-pointer operations (the shape the
// server's `diff` has). Used when an approval record carries no `diff` of its own.

function escapePointer(part) {
  return String(part).replace(/~/g, "~0").replace(/\//g, "~1");
}

function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * @param {any} from
 * @param {any} to
 * @returns {Array<{ op: string, path: string, from?: unknown, value?: unknown }>}
 */
export function jsonDiff(from, to, path = "") {
  if (isObject(from) && isObject(to)) {
    const changes = [];
    for (const key of Object.keys(from)) {
      const child = `${path}/${escapePointer(key)}`;
      if (!Object.hasOwn(to, key)) changes.push({ op: "remove", path: child, from: from[key] });
      else changes.push(...jsonDiff(from[key], to[key], child));
    }
    for (const key of Object.keys(to)) {
      if (!Object.hasOwn(from, key))
        changes.push({ op: "add", path: `${path}/${escapePointer(key)}`, value: to[key] });
    }
    return changes;
  }
  return JSON.stringify(from) === JSON.stringify(to)
    ? []
    : [{ op: "replace", path: path || "/", from, value: to }];
}
