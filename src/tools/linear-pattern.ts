import type { AST, RegExpParser } from "@eslint-community/regexpp";
import type { RE2JS } from "re2js";
import { maxPatternProgramSize } from "./pattern-limits.js";

/** What compiling a pattern takes: regexpp reads it as ECMA-262 (JSON Schema's dialect), RE2 runs it. */
export interface ILinearPatternModules {
  RE2JS: typeof RE2JS;
  RegExpParser: typeof RegExpParser;
}

/** A pattern compiled for RE2: its source, the size of its program, and a search anywhere in a text. */
export interface ILinearPattern {
  source: string;
  programSize: number;
  test(text: string): boolean;
}

/** A pattern Tollgate will not run, and why (the schema that holds it does not compile). */
export class PatternRefusedError extends Error {
  constructor(
    readonly pattern: string,
    readonly reason: string,
  ) {
    super(`the pattern ${JSON.stringify(pattern)} is refused: ${reason}`);
    this.name = "PatternRefusedError";
  }
}

const backtrackingOnly = "needs a backtracking engine; patterns run on RE2, in linear time";

/**
 * A JSON Schema pattern compiled for RE2, whose time is linear in the text it reads. Refused with a
 * PatternRefusedError when it is not an ECMA-262 regular expression (unicode mode, as ajv reads
 * patterns), when it needs backtracking (a lookaround, a backreference), when RE2 cannot read it (a
 * repeat over 1000, a Unicode property RE2 does not name), or when its program is over
 * `maxPatternProgramSize` instructions, estimated before RE2 compiles it so that refusing one costs little.
 */
export function compileLinearPattern(modules: ILinearPatternModules, source: string): ILinearPattern {
  const ast = parseEcmaPattern(modules, source);
  const needsBacktracking = backtrackingFeatureOf(ast);
  if (needsBacktracking !== undefined) {
    throw new PatternRefusedError(source, `${needsBacktracking} ${backtrackingOnly}`);
  }
  const estimate = sizeOfAlternatives(ast.alternatives);
  if (estimate > maxPatternProgramSize) throw tooLarge(source, estimate);
  const { RE2JS } = modules;
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(RE2JS.translateRegExp(source));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new PatternRefusedError(source, `RE2 cannot express it (${message})`);
  }
  const programSize = compiled.programSize();
  if (programSize > maxPatternProgramSize) throw tooLarge(source, programSize);
  return { source, programSize, test: (text) => compiled.test(text) };
}

function tooLarge(source: string, size: number): PatternRefusedError {
  return new PatternRefusedError(
    source,
    `it compiles to about ${size} RE2 instructions, over the ${maxPatternProgramSize} a pattern may have`,
  );
}

function parseEcmaPattern(modules: ILinearPatternModules, source: string): AST.Pattern {
  try {
    return new modules.RegExpParser({ ecmaVersion: 2025 }).parsePattern(source, 0, source.length, {
      unicode: true,
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new PatternRefusedError(source, `it is not an ECMA-262 regular expression (${message})`);
  }
}

/** What in the pattern only a backtracking engine runs, in words, or undefined. */
function backtrackingFeatureOf(ast: AST.Pattern): string | undefined {
  const pending: AST.Node[] = [ast];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    if (node.type === "Backreference") return "a backreference (\\1, \\k<name>)";
    if (node.type === "Assertion" && node.kind === "lookahead") return "a lookahead ((?=…), (?!…))";
    if (node.type === "Assertion" && node.kind === "lookbehind") return "a lookbehind ((?<=…), (?<!…))";
    pending.push(...childrenOf(node));
  }
  return undefined;
}

function childrenOf(node: AST.Node): AST.Node[] {
  switch (node.type) {
    case "Pattern":
    case "Group":
    case "CapturingGroup":
      return node.alternatives;
    case "Alternative":
      return node.elements;
    case "Quantifier":
      return [node.element];
    default:
      return [];
  }
}

// The size RE2 will give the program, as its parser estimates it (Go's regexp/syntax calcSize): a
// character or a class is one instruction, a repeat copies what it repeats.
function sizeOfAlternatives(alternatives: readonly AST.Alternative[]): number {
  const total = alternatives.reduce((sum, alternative) => sum + sizeOfAlternative(alternative), 0);
  return total + Math.max(0, alternatives.length - 1);
}

function sizeOfAlternative(alternative: AST.Alternative): number {
  return Math.max(
    1,
    alternative.elements.reduce((sum, element) => sum + sizeOfElement(element), 0),
  );
}

function sizeOfElement(element: AST.Element): number {
  switch (element.type) {
    case "Quantifier":
      return sizeOfQuantifier(element);
    case "Group":
      return sizeOfAlternatives(element.alternatives);
    case "CapturingGroup":
      return 2 + sizeOfAlternatives(element.alternatives);
    default:
      return 1;
  }
}

function sizeOfQuantifier({ min, max, element }: AST.Quantifier): number {
  const repeated = sizeOfElement(element);
  if (max === Number.POSITIVE_INFINITY) return min === 0 ? 2 + repeated : 1 + min * repeated;
  return max * repeated + (max - min);
}
