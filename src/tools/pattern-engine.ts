import type { CodeOptions } from "ajv/dist/2020.js";
import { compileLinearPattern, type ILinearPatternModules, PatternRefusedError } from "./linear-pattern.js";
import { maxPatternWork, maxSchemaProgramSize } from "./pattern-limits.js";

/** ajv's `code.regExp`: called with a pattern and its flags, returns what ajv calls `test` on. */
type TRegExpEngine = NonNullable<CodeOptions["regExp"]>;
type TRegExpLike = ReturnType<TRegExpEngine>;

/** A validation stopped before its patterns read more than `maxPatternWork`. */
export class PatternWorkExceededError extends Error {
  constructor() {
    super(
      `is too long to check against the schema's patterns (characters tested times the patterns' sizes over ${maxPatternWork})`,
    );
    this.name = "PatternWorkExceededError";
  }
}

/**
 * The regular-expression engine of one ajv instance (ajv's `code.regExp` option): every `pattern`,
 * `patternProperties` key and `propertyNames` pattern that instance compiles runs on RE2
 * (compileLinearPattern), never on the backtracking RegExp. It also keeps the two budgets a schema from a
 * caller or a server could otherwise overrun: the program size of one schema's patterns, spent while
 * `compiling`, and the work of one validation, spent while `validating`. Synchronous, like ajv, so the
 * budget in force is the one of the compile or validation running.
 */
export class LinearPatternEngine {
  readonly regExp: TRegExpEngine;
  #compileBudget: number | undefined;
  #workBudget: number | undefined;

  constructor(modules: ILinearPatternModules) {
    const engine = (source: string): TRegExpLike => this.#compile(modules, source);
    // ajv reads `code` only to write standalone validation code, which Tollgate does not.
    this.regExp = Object.assign(engine, { code: "tollgate/linear-pattern-engine" });
  }

  /** Runs one schema's compile; a PatternRefusedError thrown by ajv.compile names the pattern at fault. */
  compiling<TResult>(compile: () => TResult): TResult {
    const outer = this.#compileBudget;
    this.#compileBudget = maxSchemaProgramSize;
    try {
      return compile();
    } finally {
      this.#compileBudget = outer;
    }
  }

  /** Runs one validation; throws PatternWorkExceededError once its patterns would read too much. */
  validating<TResult>(validate: () => TResult): TResult {
    const outer = this.#workBudget;
    this.#workBudget = maxPatternWork;
    try {
      return validate();
    } finally {
      this.#workBudget = outer;
    }
  }

  #compile(modules: ILinearPatternModules, source: string): TRegExpLike {
    const pattern = compileLinearPattern(modules, source);
    if (this.#compileBudget !== undefined) {
      this.#compileBudget -= pattern.programSize;
      if (this.#compileBudget < 0) {
        throw new PatternRefusedError(
          source,
          `the schema's patterns compile to more than the ${maxSchemaProgramSize} RE2 instructions a schema may have`,
        );
      }
    }
    const compiled = {
      test: (text: string) => {
        this.#spend(text.length * pattern.programSize);
        return pattern.test(text);
      },
      // ajv keeps one compiled pattern per `toString()`: the source, as for a RegExp of the same flags.
      toString: () => source,
    };
    return compiled;
  }

  #spend(work: number): void {
    if (this.#workBudget === undefined) return;
    this.#workBudget -= work;
    if (this.#workBudget < 0) throw new PatternWorkExceededError();
  }
}
