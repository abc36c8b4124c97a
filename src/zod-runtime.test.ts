import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { checkZodType, checkZodVersion, isZodType, SUPPORTED_ZOD, zod } from "./zod-runtime.js";

const root = fileURLToPath(new URL("..", import.meta.url));

describe("zod()", () => {
  it("is the application's own zod module instance", () => {
    expect(zod().ZodType).toBe(z.ZodType);
    expect(zod().toJSONSchema).toBe(z.toJSONSchema);
    expect(zod()).toBe(zod());
  });

  it("refuses a zod without toJSONSchema (zod 3) with the error that says nodestep needs zod 4", () => {
    expect(SUPPORTED_ZOD).toBe("^4.5.0");
    expect(() => checkZodVersion({ object: () => ({}) })).toThrow(
      new Error(
        'nodestep needs zod 4 (^4.5.0), but the installed "zod" is zod 3 or older: install zod 4 with npm install zod@^4.5.0',
      ),
    );
    expect(() => checkZodVersion(z)).not.toThrow();
  });
});

describe("isZodType", () => {
  it("answers as instanceof does in zod 4, without zod", () => {
    expect(isZodType(z.string())).toBe(true);
    expect(isZodType(z.object({}))).toBe(true);
    expect(isZodType(z.object({}), "ZodObject")).toBe(true);
    expect(isZodType(z.string(), "ZodObject")).toBe(false);
    // A zod 3 schema has a _def and no _zod.
    expect(isZodType({ _def: { typeName: "ZodString" } })).toBe(false);
    expect(isZodType({ _zod: { traits: ["ZodType"] } })).toBe(false);
    expect(isZodType(null)).toBe(false);
    expect(isZodType("z.string()")).toBe(false);
    expect(checkZodType({})).toBe(false);
    expect(checkZodType(z.number())).toBe(true);
  });
});

describe('import("nodestep")', () => {
  /** Run a module script in a new process with the sources (tsx, tsconfig paths). */
  async function run(script: string): Promise<unknown> {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script],
      { cwd: root, timeout: 60_000 },
    );
    return JSON.parse(stdout);
  }
  // zod keeps its config on globalThis when it loads. (node:crypto, which nodestep also
  // loads on first use only, cannot be told apart here: tsx loads it.)
  const probe = `const loaded = () => ({ zod: "__zod_globalConfig" in globalThis });`;

  it("does not load zod; the first schema used does", async () => {
    const out = await run(`${probe}
      const ns = await import("nodestep");
      const before = loaded();
      const parsed = ns.AgentState.fields.get("finalText").schema.parse(undefined);
      const graph = new ns.Graph(ns.AgentState);
      console.log(JSON.stringify({ before, after: loaded(), parsed, fields: [...ns.AgentState.fields.keys()] }));`);
    expect(out).toEqual({
      before: { zod: false },
      after: { zod: true },
      parsed: null,
      fields: ["messages", "toolCalls", "finalText", "finalOutput"],
    });
  }, 60_000);
});
