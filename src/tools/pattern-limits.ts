/**
 * Bounds on the regular expressions of JSON Schemas (`pattern`, `patternProperties`, `propertyNames`),
 * in one place so that a change is one reviewed line (docs/LIMITS.md lists them). Patterns run on RE2's
 * engine, linear in the text it reads; what stays to bound is the factor in front, the size of the
 * program a pattern compiles to (`a[ab]{999}$` is 1,003 instructions, stepped through for every
 * character where the DFA gives up: about 1.2 s on 64 KiB here, see docs/DESIGN-NOTES.md).
 */

/**
 * The largest program one pattern may compile to, in RE2 instructions. Estimated from the pattern before
 * RE2 compiles it (a compile costs about half a microsecond per instruction). zod's largest format pattern,
 * `cidrv6`, is 710.
 */
export const maxPatternProgramSize = 5_000;

/** The most RE2 instructions the patterns of one schema may compile to together. */
export const maxSchemaProgramSize = 20_000;

/**
 * The most pattern work one validation may do: for each text a pattern tests, its length in characters
 * times the pattern's program size. At RE2's slowest (its NFA, where its DFA gives up) 10 million took
 * 0.6 to 0.8 s on this project's 2-core test machine under load (20 million, 1.2 s); a thousand ipv4
 * addresses checked against zod's pattern are about 1 million.
 */
export const maxPatternWork = 10_000_000;
