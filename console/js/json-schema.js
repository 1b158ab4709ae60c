// Checks a value against a JSON Schema in the browser, so a reviewer sees what is wrong with an edit
// next to the field before anything is sent. It covers the keywords the tools' schemas use (those zod
// writes: types, properties, required, additionalProperties, items, enum/const, bounds, lengths,
// pattern, common formats, anyOf/oneOf/allOf, local $ref); a keyword it does not know is not checked
// here, and the server checks the edit again with the tool's own schema (422, shown the same way).

/**
 * @typedef {{ path: Array<string | number>, message: string }} TIssue
 */

/**
 * The issues of `value` against `schema`; none when it is valid.
 * @param {any} schema
 * @param {unknown} value
 * @returns {TIssue[]}
 */
export function validate(schema, value) {
  const issues = [];
  check(schema, value, [], issues, schema);
  return issues;
}

const formats = {
  email: /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  "date-time": /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
  uri: /^[a-z][a-z0-9+.-]*:\S+$/i,
};

function typeOf(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function matchesType(expected, actual) {
  return expected === actual || (expected === "number" && actual === "integer");
}

function resolve(schema, root) {
  if (schema && typeof schema.$ref === "string" && schema.$ref.startsWith("#")) {
    const target = schema.$ref
      .slice(1)
      .split("/")
      .filter((part) => part !== "")
      .reduce((node, part) => node?.[part.replace(/~1/g, "/").replace(/~0/g, "~")], root);
    return target ?? {};
  }
  return schema;
}

function check(rawSchema, value, path, issues, root) {
  if (rawSchema === true || rawSchema === undefined) return;
  if (rawSchema === false) {
    issues.push({ path, message: "is not allowed" });
    return;
  }
  const schema = resolve(rawSchema, root);
  const before = issues.length;
  checkType(schema, value, path, issues);
  if (issues.length > before) return;
  checkValue(schema, value, path, issues);
  checkCombinations(schema, value, path, issues, root);
  if (typeOf(value) === "object") checkObject(schema, value, path, issues, root);
  if (Array.isArray(value)) checkArray(schema, value, path, issues, root);
}

function checkType(schema, value, path, issues) {
  if (schema.type === undefined) return;
  const expected = Array.isArray(schema.type) ? schema.type : [schema.type];
  const actual = typeOf(value);
  if (!expected.some((type) => matchesType(type, actual))) {
    issues.push({ path, message: `must be ${expected.join(" or ")}, not ${actual}` });
  }
}

function checkValue(schema, value, path, issues) {
  if (schema.const !== undefined && JSON.stringify(schema.const) !== JSON.stringify(value)) {
    issues.push({ path, message: `must be ${JSON.stringify(schema.const)}` });
  }
  if (
    Array.isArray(schema.enum) &&
    !schema.enum.some((item) => JSON.stringify(item) === JSON.stringify(value))
  ) {
    issues.push({
      path,
      message: `must be one of ${schema.enum.map((item) => JSON.stringify(item)).join(", ")}`,
    });
  }
  if (typeof value === "number") {
    if (schema.minimum !== undefined && value < schema.minimum)
      issues.push({ path, message: `must be at least ${schema.minimum}` });
    if (schema.maximum !== undefined && value > schema.maximum)
      issues.push({ path, message: `must be at most ${schema.maximum}` });
    if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) {
      issues.push({ path, message: `must be greater than ${schema.exclusiveMinimum}` });
    }
    if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum) {
      issues.push({ path, message: `must be less than ${schema.exclusiveMaximum}` });
    }
    if (
      schema.multipleOf !== undefined &&
      Math.abs(value / schema.multipleOf - Math.round(value / schema.multipleOf)) > 1e-9
    ) {
      issues.push({ path, message: `must be a multiple of ${schema.multipleOf}` });
    }
  }
  if (typeof value === "string") {
    const length = [...value].length;
    if (schema.minLength !== undefined && length < schema.minLength) {
      issues.push({
        path,
        message:
          schema.minLength === 1 ? "must not be empty" : `must be at least ${schema.minLength} characters`,
      });
    }
    if (schema.maxLength !== undefined && length > schema.maxLength)
      issues.push({ path, message: `must be at most ${schema.maxLength} characters` });
    // A format says what a pattern means: "must be a valid email" rather than the regular expression.
    const format = formats[schema.format];
    const failsPattern = typeof schema.pattern === "string" && !safePattern(schema.pattern).test(value);
    if ((format && !format.test(value)) || (failsPattern && typeof schema.format === "string")) {
      issues.push({ path, message: `must be a valid ${schema.format}` });
    } else if (failsPattern) {
      const pattern = schema.pattern.length > 40 ? `${schema.pattern.slice(0, 40)}…` : schema.pattern;
      issues.push({ path, message: `must match the pattern ${pattern}` });
    }
  }
}

function safePattern(pattern) {
  try {
    return new RegExp(pattern, "u");
  } catch {
    return /(?:)/;
  }
}

function checkCombinations(schema, value, path, issues, root) {
  for (const part of schema.allOf ?? []) check(part, value, path, issues, root);
  for (const keyword of ["anyOf", "oneOf"]) {
    const options = schema[keyword];
    if (!Array.isArray(options)) continue;
    const results = options.map((option) => {
      const found = [];
      check(option, value, path, found, root);
      return found;
    });
    const passing = results.filter((found) => found.length === 0).length;
    if (passing === 0) {
      // The closest option's issues say more than "matches none": the one that got furthest.
      const closest = results.reduce((best, found) => (found.length < best.length ? found : best));
      issues.push(...closest);
    } else if (keyword === "oneOf" && passing > 1) {
      issues.push({ path, message: "matches more than one of the allowed shapes" });
    }
  }
}

function checkObject(schema, value, path, issues, root) {
  const properties = schema.properties ?? {};
  for (const name of schema.required ?? []) {
    if (!Object.hasOwn(value, name)) issues.push({ path: [...path, name], message: "is required" });
  }
  for (const [name, item] of Object.entries(value)) {
    if (Object.hasOwn(properties, name)) check(properties[name], item, [...path, name], issues, root);
    else if (schema.additionalProperties === false)
      issues.push({ path: [...path, name], message: "is not a field of this tool" });
    else if (typeof schema.additionalProperties === "object")
      check(schema.additionalProperties, item, [...path, name], issues, root);
  }
}

function checkArray(schema, value, path, issues, root) {
  if (schema.minItems !== undefined && value.length < schema.minItems)
    issues.push({ path, message: `must have at least ${schema.minItems} items` });
  if (schema.maxItems !== undefined && value.length > schema.maxItems)
    issues.push({ path, message: `must have at most ${schema.maxItems} items` });
  const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : [];
  value.forEach((item, index) => {
    const itemSchema = index < prefix.length ? prefix[index] : schema.items;
    if (itemSchema !== undefined) check(itemSchema, item, [...path, index], issues, root);
  });
}
