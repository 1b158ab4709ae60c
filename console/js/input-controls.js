// One field's control by the kind of its value: a text input for a string or a number, a select for a
// boolean or for a choice of fixed values (an enum), and JSON text for anything else.

import { h } from "./dom.js";

/**
 * The values of an enum as a select's options, in the schema's order: "(not set)" first when the field
 * may be left out, and a value the model sent outside the enum kept (marked), so that showing the form
 * never changes the input by itself; the schema check then names it.
 */
export function choicesOf(schema, value, required) {
  const choices = schema.enum.map((item) => ({ value: item, text: choiceText(item) }));
  if (value !== undefined && !choices.some((choice) => sameValue(choice.value, value)))
    choices.unshift({ value, text: `${choiceText(value)} (as sent; not one of the choices)` });
  if (!required || value === undefined) choices.unshift({ value: undefined, text: "(not set)" });
  return choices;
}

function choiceText(value) {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function sameValue(left, right) {
  return JSON.stringify(left) === JSON.stringify(right);
}

export function kindOf(schema, value) {
  const type = Array.isArray(schema.type) ? schema.type.filter((item) => item !== "null")[0] : schema.type;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return "enum";
  if (type === "string" || (type === undefined && typeof value === "string")) return "string";
  if (type === "number" || type === "integer" || (type === undefined && typeof value === "number"))
    return "number";
  if (type === "boolean" || (type === undefined && typeof value === "boolean")) return "boolean";
  return "json";
}

export function controlOf(kind, value, id, errorId, choices) {
  const common = { id, name: id, "aria-describedby": errorId };
  if (kind === "enum") {
    // Options are indexes into `choices`: a value of any JSON type is chosen as itself.
    const select = h(
      "select",
      common,
      choices.map((choice, index) => h("option", { value: String(index), text: choice.text })),
    );
    const index = choices.findIndex((choice) => sameValue(choice.value, value));
    /** @type {HTMLSelectElement} */ (select).value = String(Math.max(0, index));
    return select;
  }
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
