/**
 * True when A and B are the same type, checked both ways with the compiler's identity relation: stricter
 * than mutual assignability, so `{ a?: string }` and `{ a: string | undefined }` differ, and `any` equals
 * only `any`.
 */
export type TExactlyEqual<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2
    ? (<T>() => T extends B ? 1 : 2) extends <T>() => T extends A ? 1 : 2
      ? true
      : false
    : false;

/**
 * Compiles only when A and B are the same type; otherwise the call misses its argument and the compiler
 * names the two types. Does nothing when run.
 */
export function expectExactlyEqual<A, B>(
  ..._proof: TExactlyEqual<A, B> extends true ? [] : ["the two types differ", A, B]
): void {}
