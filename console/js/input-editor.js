// The input of a parked call as a form: one field per value, nested objects as groups, anything else
// (arrays, values of no simple type) as JSON text. Each field has its own error line, so an issue,
// whether found here against the tool's JSON Schema or by the server (422), is shown next to the
// field it is about.

import { h } from "./dom.js";

let editorCount = 0;
const maxDepth = 4;

/**
 * @param {any} schema  the tool's input JSON Schema (may be empty)
 * @param {unknown} original  the input as the model sent it
 */
export function createInputEditor(schema, original) {
  editorCount += 1;
  const idPrefix = `field-${editorCount}`;
  /** @type {Array<{ path: Array<string | number>, errorLine: HTMLElement, control?: HTMLElement }>} */
  const slots = [];
  const rootErrors = h("p", { class: "field-error", id: `${idPrefix}-root-error` });
  slots.push({ path: [], errorLine: rootErrors });
  const root = buildNode(schema ?? {}, original, [], true, 0);
  const element = h("div", { class: "input-editor" }, rootErrors, root.element);

  function buildNode(nodeSchema, value, path, required, depth) {
    const resolved = simpleSchemaOf(nodeSchema, schema);
    const isObjectValue = value !== null && typeof value === "object" && !Array.isArray(value);
    const hasProperties = resolved.properties !== undefined && typeof resolved.properties === "object";
    if (
      (hasProperties || (isObjectValue && resolved.type === undefined)) &&
      (isObjectValue || value === undefined) &&
      depth < maxDepth
    ) {
      return buildGroup(resolved, value ?? {}, path, depth);
    }
    return buildLeaf(resolved, value, path, required);
  }

  function buildGroup(groupSchema, value, path, depth) {
    const properties = groupSchema.properties ?? {};
    const requiredNames = new Set(groupSchema.required ?? []);
    const names = [...new Set([...Object.keys(properties), ...Object.keys(value)])];
    const children = names.map((name) => ({
      name,
      node: buildNode(
        properties[name] ?? {},
        value[name],
        [...path, name],
        requiredNames.has(name),
        depth + 1,
      ),
    }));
    const errorLine = h("p", { class: "field-error" });
    if (path.length > 0) slots.push({ path, errorLine });
    const legend = path.length > 0 ? h("legend", { text: String(path.at(-1)) }) : null;
    const element = h(
      "fieldset",
      { class: path.length > 0 ? "field-group" : "field-root" },
      legend,
      errorLine,
      children.map((child) => child.node.element),
    );
    return {
      element,
      read(issues) {
        const result = {};
        for (const child of children) {
          const read = child.node.read(issues);
          if (read.present) result[child.name] = read.value;
        }
        return { present: true, value: result };
      },
    };
  }

  function buildLeaf(leafSchema, value, path, required) {
    const kind = kindOf(leafSchema, value);
    const id = `${idPrefix}-${path.join("-") || "input"}`.replace(/[^A-Za-z0-9_-]/g, "_");
    const errorLine = h("p", { class: "field-error", id: `${id}-error` });
    const description = leafSchema.description
      ? h("span", { class: "field-hint", text: leafSchema.description })
      : null;
    const control = controlOf(kind, value, id, `${id}-error`);
    // Said by the control, not by the star: the label's accessible name stays the field's name.
    if (required) control.setAttribute("aria-required", "true");
    const label = h(
      "label",
      { for: id },
      path.length > 0 ? String(path.at(-1)) : "input",
      required ? h("span", { class: "required", "aria-hidden": "true", text: " *" }) : null,
    );
    slots.push({ path, errorLine, control });
    const hadValue = value !== undefined;
    return {
      element: h("div", { class: `field field-${kind}` }, label, description, control, errorLine),
      read(issues) {
        const text = /** @type {HTMLInputElement} */ (control).value;
        if (kind === "string")
          return text === "" && !hadValue && !required ? { present: false } : { present: true, value: text };
        if (text.trim() === "") return { present: false };
        if (kind === "number") {
          const number = Number(text.trim());
          if (!Number.isFinite(number)) {
            issues.push({ path, message: "must be a number" });
            return { present: false };
          }
          return { present: true, value: number };
        }
        if (kind === "boolean") return { present: true, value: text === "true" };
        try {
          return { present: true, value: JSON.parse(text) };
        } catch (error) {
          issues.push({
            path,
            message: `is not valid JSON (${error instanceof Error ? error.message : "parse error"})`,
          });
          return { present: false };
        }
      },
    };
  }

  return {
    element,
    /** The edited input, and the issues found while reading it (text that is not a number, bad JSON). */
    read() {
      const issues = [];
      const read = root.read(issues);
      return { value: read.present ? read.value : undefined, issues };
    },
    /**
     * Shows each issue on the field it is about (the deepest field whose path starts its path); clears
     * the others. Returns the first field with an issue, to move the focus there.
     * @param {Array<{ path: Array<string | number>, message: string }>} issues
     */
    showIssues(issues) {
      for (const slot of slots) {
        slot.errorLine.textContent = "";
        slot.control?.removeAttribute("aria-invalid");
      }
      let first;
      for (const issue of issues) {
        const slot = slotFor(issue.path);
        const name =
          issue.path.length > slot.path.length ? `${issue.path.slice(slot.path.length).join(".")} ` : "";
        slot.errorLine.textContent = [slot.errorLine.textContent, `${name}${issue.message}`]
          .filter(Boolean)
          .join("; ");
        slot.control?.setAttribute("aria-invalid", "true");
        first ??= slot.control;
      }
      return first;
    },
  };

  function slotFor(path) {
    let best = slots[0];
    for (const slot of slots) {
      const matches =
        slot.path.length <= path.length &&
        slot.path.every((part, index) => String(part) === String(path[index]));
      if (matches && slot.path.length >= best.path.length) best = slot;
    }
    return best;
  }
}

/** The schema of one value, with a local $ref followed and an optional (`anyOf` with null) unwrapped. */
function simpleSchemaOf(schema, root) {
  let resolved = schema ?? {};
  if (typeof resolved.$ref === "string" && resolved.$ref.startsWith("#")) {
    resolved =
      resolved.$ref
        .slice(1)
        .split("/")
        .filter(Boolean)
        .reduce((node, part) => node?.[part], root) ?? {};
  }
  const options = resolved.anyOf ?? resolved.oneOf;
  if (Array.isArray(options)) {
    const notNull = options.filter((option) => option.type !== "null");
    if (notNull.length === 1)
      return { ...notNull[0], description: resolved.description ?? notNull[0].description };
  }
  return resolved;
}

function kindOf(schema, value) {
  const type = Array.isArray(schema.type) ? schema.type.filter((item) => item !== "null")[0] : schema.type;
  if (Array.isArray(schema.enum)) return "json";
  if (type === "string" || (type === undefined && typeof value === "string")) return "string";
  if (type === "number" || type === "integer" || (type === undefined && typeof value === "number"))
    return "number";
  if (type === "boolean" || (type === undefined && typeof value === "boolean")) return "boolean";
  return "json";
}

function controlOf(kind, value, id, errorId) {
  const common = { id, name: id, "aria-describedby": errorId };
  if (kind === "boolean") {
    const select = h(
      "select",
      common,
      h("option", { value: "", text: "(not set)" }),
      h("option", { value: "true", text: "true" }),
      h("option", { value: "false", text: "false" }),
    );
    /** @type {HTMLSelectElement} */ (select).value = value === undefined ? "" : String(value);
    return select;
  }
  if (kind === "json") {
    const text = value === undefined ? "" : JSON.stringify(value, null, 2);
    return h(
      "textarea",
      {
        ...common,
        rows: Math.min(12, Math.max(2, text.split("\n").length)),
        spellcheck: "false",
        class: "json-field",
      },
      text,
    );
  }
  return h("input", {
    ...common,
    type: "text",
    value: value === undefined ? "" : String(value),
    inputmode: kind === "number" ? "decimal" : undefined,
    autocomplete: "off",
    spellcheck: "false",
  });
}

/** JSON with object keys sorted: two inputs that differ only in key order are the same input. */
export function canonicalJson(value) {
  return JSON.stringify(value, (_key, item) =>
    item !== null && typeof item === "object" && !Array.isArray(item)
      ? Object.fromEntries(
          Object.keys(item)
            .sort()
            .map((key) => [key, item[key]]),
        )
      : item,
  );
}
