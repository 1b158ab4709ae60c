import { TollgateError } from "../../src/errors/index.js";

/** The TollgateError `promise` rejects with; fails when it resolves or rejects with anything else. */
export async function refusal(promise: Promise<unknown>): Promise<TollgateError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!TollgateError.isInstance(error)) throw new Error(`expected a TollgateError, got ${String(error)}`);
  return error;
}
