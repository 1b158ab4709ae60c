import type { InputBlock, KnownBlock, ModalView, PlainTextOption } from "@slack/types";
import type { IApproval } from "../contracts/index.js";
import { editModalCallbackId, encodeActionValue, type TSlackActionValue } from "./slack-actions.js";
import { escapeMrkdwn, truncated } from "./slack-text.js";

/**
 * How one field is edited, named by its element's `action_id` so that a submission is read back without
 * any state kept between the two requests: text as typed, a number, a choice among the schema's values
 * (its option values are JSON), or JSON for anything else.
 */
type TFieldKind = "text" | "number" | "choice" | "json";

/** A block's id is `input` (the whole input as JSON) or `input.<key>` (one top-level field). */
export const wholeInputBlockId = "input";
export const fieldBlockPrefix = "input.";
/** Slack's limits: a text input holds 3,000 characters, a static select 100 options of 75 characters. */
const textMax = 3_000;
const maxOptions = 100;
const optionTextMax = 75;
/** A form of more fields than this (or keys longer than a block id may quote) is edited as one JSON. */
const maxFields = 50;
const maxKeyLength = 200;

interface IJsonSchemaProperty {
  type?: unknown;
  enum?: unknown;
  description?: unknown;
  minimum?: unknown;
  maximum?: unknown;
}

/**
 * The modal that edits an approval's input before approving it: one field per top-level key of the input
 * (text, number, a choice among the schema's values, JSON for the rest) when the tool's JSON Schema is an
 * object's, else the whole input as JSON. Its metadata carries the target, the approval and the hash of
 * the input shown, as a button does. What it sends is checked by the tool's schema on the one decision
 * path (TG_APPROVAL_INVALID_EDIT, answered as errors under the fields).
 */
export function editModalOf(args: {
  approval: IApproval;
  value: TSlackActionValue;
  /** The JSON Schema of the tool's input, as the model is offered it; absent: edited as JSON. */
  inputSchema?: Record<string, unknown> | undefined;
}): ModalView {
  const { approval } = args;
  const input = approval.inputs?.approved ?? approval.input;
  const fields = fieldBlocksOf(input, args.inputSchema);
  const header: KnownBlock = {
    type: "section",
    text: {
      type: "mrkdwn",
      text: truncated(
        `*${escapeMrkdwn(approval.toolName)}*${approval.reason !== undefined ? `: ${escapeMrkdwn(approval.reason)}` : ""}\nThe tool's schema checks the edit; the policy decides the edited call again.`,
        3_000,
      ),
    },
  };
  const base = {
    type: "modal" as const,
    callback_id: editModalCallbackId,
    title: { type: "plain_text" as const, text: "Edit and approve" },
    close: { type: "plain_text" as const, text: "Cancel" },
    private_metadata: encodeActionValue(args.value),
  };
  if (fields === undefined) {
    return {
      ...base,
      blocks: [
        header,
        {
          type: "section",
          text: {
            type: "mrkdwn",
            text: "This input is too large to edit in Slack: open the approval in the console.",
          },
        },
      ],
    };
  }
  return { ...base, submit: { type: "plain_text", text: "Approve" }, blocks: [header, ...fields] };
}

/** The input blocks of a form, or undefined when the input cannot be edited in Slack (too large). */
function fieldBlocksOf(
  input: unknown,
  inputSchema: Record<string, unknown> | undefined,
): InputBlock[] | undefined {
  const properties = objectProperties(inputSchema);
  const isObject = typeof input === "object" && input !== null && !Array.isArray(input);
  if (properties !== undefined && isObject) {
    const values = input as Record<string, unknown>;
    const keys = [...new Set([...Object.keys(properties), ...Object.keys(values)])];
    if (keys.length <= maxFields && keys.every((key) => key.length <= maxKeyLength)) {
      const required = new Set(requiredOf(inputSchema));
      const blocks = keys.map((key) => fieldBlock(key, values[key], properties[key], required.has(key)));
      return blocks.every((block) => block !== undefined) ? blocks : undefined;
    }
  }
  const json = JSON.stringify(input, null, 2) ?? "null";
  if (json.length > textMax) return undefined;
  return [
    {
      type: "input",
      block_id: wholeInputBlockId,
      label: { type: "plain_text", text: "Input (JSON)" },
      element: { type: "plain_text_input", action_id: "json", multiline: true, initial_value: json },
    },
  ];
}

/** One field's block; undefined when its value is too large to show in a text input. */
function fieldBlock(
  key: string,
  value: unknown,
  property: IJsonSchemaProperty | undefined,
  required: boolean,
): InputBlock | undefined {
  const kind = kindOf(value, property);
  const description = typeof property?.description === "string" ? property.description : undefined;
  const block = {
    type: "input" as const,
    block_id: `${fieldBlockPrefix}${key}`,
    label: { type: "plain_text" as const, text: truncated(key, 2_000) },
    optional: !required,
    ...(description !== undefined
      ? { hint: { type: "plain_text" as const, text: truncated(description, 2_000) } }
      : {}),
  };
  switch (kind) {
    case "text": {
      if (typeof value === "string" && value.length > textMax) return undefined;
      return {
        ...block,
        element: {
          type: "plain_text_input",
          action_id: kind,
          multiline: typeof value === "string" && (value.length > 150 || value.includes("\n")),
          ...(typeof value === "string" && value !== "" ? { initial_value: value } : {}),
        },
      };
    }
    case "number":
      return {
        ...block,
        element: {
          type: "number_input",
          action_id: kind,
          is_decimal_allowed: property?.type !== "integer",
          ...(typeof value === "number" ? { initial_value: String(value) } : {}),
          ...(typeof property?.minimum === "number" ? { min_value: String(property.minimum) } : {}),
          ...(typeof property?.maximum === "number" ? { max_value: String(property.maximum) } : {}),
        },
      };
    case "choice": {
      const options = choicesOf(property).map(
        (choice): PlainTextOption => ({
          text: { type: "plain_text", text: truncated(String(choice), optionTextMax) },
          value: JSON.stringify(choice),
        }),
      );
      const initial = options.find((option) => option.value === JSON.stringify(value));
      return {
        ...block,
        element: {
          type: "static_select",
          action_id: kind,
          options,
          ...(initial !== undefined ? { initial_option: initial } : {}),
        },
      };
    }
    case "json": {
      const json = value === undefined ? undefined : JSON.stringify(value, null, 2);
      if (json !== undefined && json.length > textMax) return undefined;
      return {
        ...block,
        label: { type: "plain_text", text: truncated(`${key} (JSON)`, 2_000) },
        element: {
          type: "plain_text_input",
          action_id: kind,
          multiline: true,
          ...(json !== undefined ? { initial_value: json } : {}),
        },
      };
    }
  }
}

/** A field's kind: its schema's when the value agrees with it (or is absent), else JSON. */
function kindOf(value: unknown, property: IJsonSchemaProperty | undefined): TFieldKind {
  if (choicesOf(property).length > 0) return "choice";
  const type = property?.type;
  if (type === "string" && (value === undefined || typeof value === "string")) return "text";
  if ((type === "number" || type === "integer") && (value === undefined || typeof value === "number"))
    return "number";
  return "json";
}

/** The values a field may take when its schema lists them (an enum, or a boolean), within Slack's limits. */
function choicesOf(property: IJsonSchemaProperty | undefined): Array<string | number | boolean | null> {
  if (property?.type === "boolean") return [true, false];
  const values = property?.enum;
  if (!Array.isArray(values) || values.length === 0 || values.length > maxOptions) return [];
  const primitives = values.filter(
    (choice): choice is string | number | boolean | null =>
      choice === null || ["string", "number", "boolean"].includes(typeof choice),
  );
  const fits = primitives.every((choice) => JSON.stringify(choice).length <= optionTextMax);
  return primitives.length === values.length && fits ? primitives : [];
}

function objectProperties(
  schema: Record<string, unknown> | undefined,
): Record<string, IJsonSchemaProperty> | undefined {
  const properties = schema?.properties;
  return schema?.type === "object" && typeof properties === "object" && properties !== null
    ? (properties as Record<string, IJsonSchemaProperty>)
    : undefined;
}

function requiredOf(schema: Record<string, unknown> | undefined): string[] {
  const required = schema?.required;
  return Array.isArray(required) ? required.filter((key): key is string => typeof key === "string") : [];
}
