import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parsePromptScripts } from "../../../src/model/scripted/prompt-scripts.js";
import { parseScript, scriptFields } from "../../../src/model/scripted/script-schema.js";

/** docs/SCRIPTED-MODEL.md, the script format's page: every field named, every example a valid script. */
const page = readFileSync(new URL("../../../docs/SCRIPTED-MODEL.md", import.meta.url), "utf8");
const index = readFileSync(new URL("../../../docs/README.md", import.meta.url), "utf8");
const examples = [...page.matchAll(/```json\n([\s\S]*?)\n```/g)].map((match) => match[1] ?? "");

describe("docs/SCRIPTED-MODEL.md", () => {
  it("is listed in docs/README.md", () => {
    expect(index).toContain("(SCRIPTED-MODEL.md)");
  });

  it.each(Object.entries(scriptFields))("names every field of a %s entry", (kind, fields) => {
    const prefix = kind === "call" ? "calls[]." : "";
    expect(fields.filter((field) => !page.includes(`| \`${prefix}${field}\``))).toEqual([]);
  });

  it("has examples, and each is a script or a prompt-scripts file the model accepts", () => {
    expect(examples.length).toBeGreaterThanOrEqual(5);
    for (const example of examples) {
      const json: unknown = JSON.parse(example);
      if (Array.isArray(json)) expect(parsePromptScripts(json).length).toBeGreaterThan(0);
      else expect(parseScript(example), example).toMatchObject({ kind: "script" });
    }
  });
});
