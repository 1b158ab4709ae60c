// The input of a parked call as a form: one field per value, nested objects as groups, a choice of
// fixed values (an enum) as a select, anything else (arrays, values of no simple type) as JSON text.
// Each field has its own error line, so an issue, whether found here against the tool's JSON Schema or
// by the server (422), is shown next to the field it is about.

import { h } from "./dom.js";
import { choicesOf, controlOf, kindOf } from "./input-controls.js";
import { validate } from "./json-schema.js";

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
  /** @type {Array<{ changed(): boolean, reset(): HTMLElement | undefined }>} */
  const leaves = [];
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
    const choices = kind === "enum" ? choicesOf(leafSchema, value, required) : [];
    const control = controlOf(kind, value, id, `${id}-error`, choices);
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
    const field = /** @type {HTMLInputElement} */ (control);
    const initialText = field.value;
    leaves.push({
      changed: () => field.value !== initialText,
      /** Puts the model's value back; the field, when it held another. */
      reset() {
        const changed = field.value !== initialText;
        field.value = initialText;
        return changed ? control : undefined;
      },
    });
    return {
      element: h("div", { class: `field field-${kind}` }, label, description, control, errorLine),
      read(issues) {
        const text = field.value;
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
        if (kind === "enum") {
          const choice = choices[Number(text)];
          return choice?.value === undefined ? { present: false } : { present: true, value: choice.value };
        }
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

  /** The edited input, and the issues found while reading it (text that is not a number, bad JSON). */
  function read() {
    const issues = [];
    const found = root.read(issues);
    return { value: found.present ? found.value : undefined, issues };
  }

  return {
    element,
    read,
    /**
     * Every problem of the form at once: what could not be read, and what the tool's JSON Schema says
     * of the rest (a field that could not be read is reported once, not again as missing).
     */
    problems() {
      const { value, issues } = read();
      const unread = issues.map((issue) => issue.path);
      const schemaIssues = validate(schema ?? {}, value).filter(
        (issue) => !unread.some((path) => startsWith(issue.path, path)),
      );
      return { value, issues: [...issues, ...schemaIssues] };
    },
    /**
     * Whether a field differs from what the form first showed: the reviewer's edit, whatever it reads
     * as (a model's "180" for a number reads as 180 untouched, and is not an edit).
     */
    isChanged: () => leaves.some((leaf) => leaf.changed()),
    /** Puts every field back to the model's input; the first field that held an edit, to focus. */
    reset() {
      let first;
      for (const leaf of leaves) {
        const changed = leaf.reset();
        first ??= changed;
      }
      showIssues([]);
      return first;
    },
    showIssues,
  };

  /**
   * Shows each issue on the field it is about (the deepest field whose path starts its path); clears
   * the others. Returns the first field with an issue, to move the focus there.
   * @param {Array<{ path: Array<string | number>, message: string }>} issues
   */
  function showIssues(issues) {
    for (const slot of slots) {
      slot.errorLine.textContent = "";
      slot.control?.removeAttribute("aria-invalid");
    }
    for (const issue of issues) {
      const slot = slotFor(issue.path);
      const name =
        issue.path.length > slot.path.length ? `${issue.path.slice(slot.path.length).join(".")} ` : "";
      slot.errorLine.textContent = [slot.errorLine.textContent, `${name}${issue.message}`]
        .filter(Boolean)
        .join("; ");
      slot.control?.setAttribute("aria-invalid", "true");
    }
    // The first in the form's order (slots are made in it), whichever issue was found first.
    return slots.find((slot) => slot.control?.getAttribute("aria-invalid") === "true")?.control;
  }

  function startsWith(path, prefix) {
    return (
      prefix.length <= path.length && prefix.every((part, index) => String(part) === String(path[index]))
    );
  }

  function slotFor(path) {
    let best = slots[0];
    for (const slot of slots) {
      if (startsWith(path, slot.path) && slot.path.length >= best.path.length) best = slot;
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
