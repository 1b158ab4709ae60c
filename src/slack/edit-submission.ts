import type { IFieldIssue } from "../errors/index.js";
import { fieldBlockPrefix, wholeInputBlockId } from "./edit-modal.js";
import { truncated } from "./slack-text.js";

/** One value as a view submission gives it back: `view.state.values[blockId][actionId]`. */
export interface ISlackViewStateValue {
  type?: string;
  value?: string | null;
  selected_option?: { value?: string } | null;
}

export type TViewStateValues = Record<string, Record<string, ISlackViewStateValue>>;

/**
 * The edited input a submission describes: each field of the form replaces its key of `shown` (the input
 * the modal showed), a field left empty drops its key, and the whole-input field replaces all. What cannot
 * be read (a number that is not one, JSON that does not parse) is an error under its field.
 */
export function editedInputOf(
  values: TViewStateValues,
  shown: unknown,
): { ok: true; input: unknown } | { ok: false; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  let whole: { value: unknown } | undefined;
  const fields = new Map<string, unknown>();
  for (const [blockId, actions] of Object.entries(values)) {
    if (blockId !== wholeInputBlockId && !blockId.startsWith(fieldBlockPrefix)) continue;
    const [kind, state] = Object.entries(actions)[0] ?? [];
    if (state === undefined) continue;
    const read = readField(kind, state);
    if (!read.ok) {
      errors[blockId] = read.error;
      continue;
    }
    if (blockId === wholeInputBlockId) whole = { value: read.value };
    else fields.set(blockId.slice(fieldBlockPrefix.length), read.value);
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  if (whole !== undefined) return { ok: true, input: whole.value };
  const input: Record<string, unknown> =
    typeof shown === "object" && shown !== null && !Array.isArray(shown) ? { ...(shown as object) } : {};
  for (const [key, value] of fields) {
    if (value === undefined) delete input[key];
    // Defined, not assigned: a field named `__proto__` is a key like any other, never the prototype.
    else Object.defineProperty(input, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return { ok: true, input };
}

function readField(
  kind: string | undefined,
  state: ISlackViewStateValue,
): { ok: true; value: unknown } | { ok: false; error: string } {
  const raw =
    state.selected_option !== undefined ? (state.selected_option?.value ?? null) : (state.value ?? null);
  if (raw === null || raw === "") return { ok: true, value: undefined };
  switch (kind) {
    case "text":
      return { ok: true, value: raw };
    case "number": {
      const number = Number(raw);
      return Number.isFinite(number) ? { ok: true, value: number } : { ok: false, error: "must be a number" };
    }
    case "choice":
    case "json":
      try {
        return { ok: true, value: JSON.parse(raw) };
      } catch (error) {
        return { ok: false, error: `is not valid JSON: ${(error as Error).message}` };
      }
    default:
      return { ok: false, error: "this field is not one Tollgate sent" };
  }
}

/**
 * A refused edit's field issues (`input.amount`, `input.address.city`, `input`) as errors under the
 * form's blocks: each under the field its path starts with, else under the whole-input field or the
 * first field; several on one field are joined.
 */
export function blockErrorsOf(
  issues: readonly IFieldIssue[],
  blockIds: readonly string[],
): Record<string, string> {
  const errors: Record<string, string[]> = {};
  const fallback = blockIds.includes(wholeInputBlockId) ? wholeInputBlockId : blockIds[0];
  for (const issue of issues) {
    const field = blockIds
      .filter((blockId) => blockId !== wholeInputBlockId)
      .find((blockId) => issue.path === blockId || issue.path.startsWith(`${blockId}.`));
    const blockId = field ?? fallback;
    if (blockId === undefined) continue;
    // Where in the field (or in the whole input) the issue is: `city: ...` under `input.address`.
    const anchor = field ?? wholeInputBlockId;
    const rest = issue.path.startsWith(`${anchor}.`) ? issue.path.slice(anchor.length + 1) : "";
    errors[blockId] = [...(errors[blockId] ?? []), `${rest !== "" ? `${rest}: ` : ""}${issue.message}`];
  }
  return Object.fromEntries(
    Object.entries(errors).map(([blockId, messages]) => [blockId, truncated(messages.join("; "), 500)]),
  );
}
