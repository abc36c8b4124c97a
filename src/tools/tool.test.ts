import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { expectError } from "../../test/helpers.js";
import type { JsonValue } from "../json/index.js";
import { isTool, tool } from "./tool.js";
import type { ToolContext } from "./tool-context.js";
import type { AnyTool, Tool } from "./types.js";

interface Inventory {
  stock: Record<string, number>;
}

const checkStock = tool(({ sku }, ctx: ToolContext<Inventory>) => ctx.context.stock[sku] ?? 0, {
  name: "check_stock",
  description: "Return how many items of a product are in stock.",
  input: z.object({ sku: z.string() }),
  output: z.number(),
});

describe("tool()", () => {
  it("builds a plain tool object", () => {
    expect(checkStock.kind).toBe("tool");
    expect(checkStock.name).toBe("check_stock");
    expect(checkStock.description).toBe("Return how many items of a product are in stock.");
    expect(isTool(checkStock)).toBe(true);
    expect(isTool({ kind: "tool", name: "x" })).toBe(false);
    expect(isTool(null)).toBe(false);
  });

  it("writes the input JSON schema the model sees, strict, titled, without $schema", () => {
    expect(checkStock.inputSchema()).toEqual({
      type: "object",
      properties: { sku: { type: "string" } },
      required: ["sku"],
      additionalProperties: false,
      title: "CheckStockInput",
    });
    expect(checkStock.inputSchemaJson()).toBe(
      '{"type":"object","properties":{"sku":{"type":"string"}},"required":["sku"],"additionalProperties":false,"title":"CheckStockInput"}',
    );
  });

  it("returns a fresh copy of the schema each time", () => {
    const a = checkStock.inputSchema();
    a.title = "changed";
    expect(checkStock.inputSchema().title).toBe("CheckStockInput");
  });

  it("makes a non-strict input strict and keeps its description and title", () => {
    const schema = z.object({
      q: z.string().describe("Search text"),
      limit: z.number().default(5),
    });
    const search = tool(({ q, limit }) => `${q}:${limit}`, {
      name: "search",
      description: "Search.",
      input: schema.describe("Search arguments").meta({ title: "SearchArgs" }),
    });
    expect(search.inputSchema()).toEqual({
      type: "object",
      properties: {
        q: { type: "string", description: "Search text" },
        limit: { type: "number", default: 5 },
      },
      required: ["q"],
      additionalProperties: false,
      description: "Search arguments",
      title: "SearchArgs",
    });
    expect(search.input.safeParse({ q: "x", extra: 1 }).success).toBe(false);
    expect(search.input.safeParse({ q: "x" }).data).toEqual({ q: "x", limit: 5 });
    // the caller's schema is not changed
    expect(schema.safeParse({ q: "x", extra: 1 }).success).toBe(true);
  });

  it("derives the title from names with dashes, underscores and camelCase", () => {
    const mk = (name: string) => tool(() => null, { name, description: "d" }).inputSchema().title;
    expect(mk("get-order_status")).toBe("GetOrderStatusInput");
    expect(mk("lookupOrder")).toBe("LookupOrderInput");
    expect(mk("a")).toBe("AInput");
  });

  it("uses a strict empty object when input is omitted", () => {
    const ping = tool(() => "pong", { name: "ping", description: "Ping." });
    expect(ping.inputSchema()).toEqual({
      type: "object",
      properties: {},
      additionalProperties: false,
      title: "PingInput",
    });
    expect(ping.input.safeParse({}).success).toBe(true);
    expect(ping.input.safeParse({ a: 1 }).success).toBe(false);
  });

  it("writes the output schema, {} when any JSON value is accepted", () => {
    expect(checkStock.outputSchema()).toEqual({ type: "number" });
    expect(checkStock.outputSchemaJson()).toBe('{"type":"number"}');
    const any = tool(() => 1, { name: "any", description: "d" });
    expect(any.output).toBeNull();
    expect(any.outputSchema()).toEqual({});
    expect(any.outputSchemaJson()).toBe("{}");
  });

  it("gives the definition sent to models", () => {
    expect(checkStock.definition()).toEqual({
      name: "check_stock",
      description: "Return how many items of a product are in stock.",
      inputSchema: checkStock.inputSchema(),
    });
  });

  it("supportsContext() is whether fn declares a second parameter", () => {
    expect(checkStock.supportsContext()).toBe(true);
    expect(tool((_a) => 1, { name: "one", description: "d" }).supportsContext()).toBe(false);
    expect(tool(() => 1, { name: "zero", description: "d" }).supportsContext()).toBe(false);
  });

  it("defaults the name to fn.name", () => {
    function lookup_order() {
      return "x";
    }
    expect(tool(lookup_order, { description: "Look up." }).name).toBe("lookup_order");
    const getStatus = () => "x";
    expect(tool(getStatus, { description: "d" }).name).toBe("getStatus");
    expect(tool(getStatus, { name: "other", description: "d" }).name).toBe("other");
  });

  it("accepts names of 1 and 64 characters from the allowed set", () => {
    expect(tool(() => 1, { name: "a".repeat(64), description: "d" }).name).toHaveLength(64);
    expect(tool(() => 1, { name: "A-z_09", description: "d" }).name).toBe("A-z_09");
  });

  it("infers the types of arguments, result and context", () => {
    expectTypeOf(checkStock).toEqualTypeOf<Tool<{ sku: string }, number, Inventory>>();
    const anyResult = tool((_a: Record<string, never>) => 1, { name: "r", description: "d" });
    expectTypeOf(anyResult.output).toEqualTypeOf<z.ZodType<JsonValue> | null>();
    // a typed tool fits where any tool is accepted
    const list: Array<AnyTool> = [checkStock, anyResult];
    expect(list).toHaveLength(2);
  });
});

describe("tool() TypeErrors", () => {
  it("fn not a function", async () => {
    await expectError(
      () => tool("nope" as never, { name: "x", description: "d" }),
      TypeError,
      'tool() "x": the first argument must be a function, got a string ("nope")',
    );
    await expectError(
      () => tool(null as never, { description: "d" } as never),
      TypeError,
      "tool(): the first argument must be a function, got null",
    );
  });

  it("options missing", async () => {
    await expectError(
      () => tool((() => 1) as never, undefined as never),
      TypeError,
      "tool(): the second argument must be an options object { name, description, input, output }, got undefined",
    );
  });

  it("anonymous arrow without a name", async () => {
    await expectError(
      () => tool(((_a: unknown) => 1) as never, { description: "d" }),
      TypeError,
      'tool(): the function is anonymous (an inline arrow function has no name); pass a name: tool(fn, { name: "my_tool", ... })',
    );
  });

  it("invalid names", async () => {
    for (const name of ["check stock", "", "a".repeat(65), "é", "a.b"]) {
      await expectError(
        () => tool(() => 1, { name, description: "d" }),
        TypeError,
        `tool(): invalid tool name ${JSON.stringify(name)}: it must match ^[a-zA-Z0-9_-]{1,64}$ (letters, digits, "_" and "-", at most 64)`,
      );
    }
    await expectError(
      () => tool(() => 1, { name: 5 as never, description: "d" }),
      TypeError,
      "tool(): name must be a string, got a number",
    );
  });

  it("a function name that is not a valid tool name", async () => {
    const f = { "bad name": () => 1 }["bad name"];
    await expectError(
      () => tool(f, { description: "d" }),
      TypeError,
      'tool(): invalid tool name "bad name": it must match ^[a-zA-Z0-9_-]{1,64}$ (letters, digits, "_" and "-", at most 64)',
    );
  });

  it("description missing, not a string, blank", async () => {
    await expectError(
      () => tool(() => 1, { name: "t" } as never),
      TypeError,
      'Tool "t" has no description; pass { description: "..." } (it is sent to the model)',
    );
    await expectError(
      () => tool(() => 1, { name: "t", description: 3 as never }),
      TypeError,
      'Tool "t": description must be a string, got a number',
    );
    await expectError(
      () => tool(() => 1, { name: "t", description: " \n\t " }),
      TypeError,
      'Tool "t" has a blank description; describe what the tool does (it is sent to the model)',
    );
  });

  it("input not a zod object schema", async () => {
    await expectError(
      () => tool(() => 1, { name: "t", description: "d", input: z.string() as never }),
      TypeError,
      'Tool "t": input must be a zod object schema such as z.object({ sku: z.string() }), got a zod string schema',
    );
    await expectError(
      () => tool(() => 1, { name: "t", description: "d", input: { sku: "string" } as never }),
      TypeError,
      'Tool "t": input must be a zod object schema such as z.object({ sku: z.string() }), got an object',
    );
    await expectError(
      () =>
        tool(() => 1, {
          name: "t",
          description: "d",
          input: z.object({ a: z.string() }).transform((v) => v) as never,
        }),
      TypeError,
      'Tool "t": input must be a zod object schema such as z.object({ sku: z.string() }), got a zod pipe schema',
    );
  });

  it("a zod 3 schema: says nodestep needs zod 4", async () => {
    // The shape of a zod 3 object schema: a _def, no _zod (zod 3 is not installed here).
    class ZodObject {
      _def = { typeName: "ZodObject", shape: () => ({}) };
    }
    const zod3 = new ZodObject();
    const needs4 =
      'a zod 3 schema; nodestep needs zod 4 schemas (npm install zod@^4, or import { z } from "zod/v4" with zod 3.25)';
    await expectError(
      () => tool(() => 1, { name: "t", description: "d", input: zod3 as never }),
      TypeError,
      `Tool "t": input must be a zod object schema such as z.object({ sku: z.string() }), got ${needs4}`,
    );
    await expectError(
      () => tool(() => 1, { name: "t", description: "d", output: zod3 as never }),
      TypeError,
      `Tool "t": output must be a zod schema such as z.string(), got ${needs4}`,
    );
  });

  it("output not a zod schema", async () => {
    await expectError(
      () => tool(() => 1, { name: "t", description: "d", output: "string" as never }),
      TypeError,
      'Tool "t": output must be a zod schema such as z.string(), got a string ("string")',
    );
  });

  it("schemas that cannot be written as JSON schema", async () => {
    await expectError(
      () => tool(() => 1, { name: "t", description: "d", input: z.object({ at: z.date() }) }),
      TypeError,
      'Tool "t": the input schema cannot be written as JSON schema (Date cannot be represented in JSON Schema); use JSON types only',
    );
    await expectError(
      () => tool(() => new Date(), { name: "t", description: "d", output: z.date() }),
      TypeError,
      'Tool "t": the output schema cannot be written as JSON schema (Date cannot be represented in JSON Schema); use JSON types only',
    );
  });
});
