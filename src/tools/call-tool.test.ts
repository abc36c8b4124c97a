import { describe, expect, it } from "vitest";
import { z } from "zod";
import { caught, expectError } from "../../test/helpers.js";
import { ContextNotProvidedError, ToolDeniedError, ValidationError } from "../errors/index.js";
import { GraphInterrupt } from "../graph/context.js";
import type { JsonObject } from "../json/index.js";
import type { Middleware, ToolMiddlewareContext } from "../middleware/types.js";
import { callTool, toolResultContent } from "./call-tool.js";
import { tool } from "./tool.js";
import { ToolContext } from "./tool-context.js";

interface Inventory {
  stock: Record<string, number>;
}

const checkStock = tool(({ sku }, ctx: ToolContext<Inventory>) => ctx.context.stock[sku] ?? 0, {
  name: "check_stock",
  description: "Return how many items of a product are in stock.",
  input: z.object({ sku: z.string() }),
  output: z.number().int(),
});

const getOrderStatus = tool(async ({ orderId }) => (orderId === "A-1001" ? "shipped" : "unknown"), {
  name: "get_order_status",
  description: "Look up the shipping status of an order.",
  input: z.object({ orderId: z.string() }),
  output: z.string(),
});

const inventory = ToolContext.empty<Inventory>({ context: { stock: { "MUG-1": 12 } } });

describe("callTool", () => {
  it("calls a sync tool with its context and returns the value and the arguments", async () => {
    expect(await callTool(checkStock, { sku: "MUG-1" }, inventory)).toEqual({
      value: 12,
      arguments: { sku: "MUG-1" },
    });
  });

  it("calls an async tool without a context", async () => {
    expect(await callTool(getOrderStatus, { orderId: "A-1001" })).toEqual({
      value: "shipped",
      arguments: { orderId: "A-1001" },
    });
  });

  it("passes the parsed arguments (defaults applied) and returns the arguments as given", async () => {
    const seen: unknown[] = [];
    const t = tool(
      (args) => {
        seen.push(args);
        return args.n;
      },
      { name: "t", description: "d", input: z.object({ n: z.number().default(3) }) },
    );
    expect(await callTool(t, {})).toEqual({ value: 3, arguments: {} });
    expect(seen).toEqual([{ n: 3 }]);
  });

  it("throws TypeError when the tool is not a tool", async () => {
    await expectError(
      () => callTool({ name: "x" } as never, {}),
      TypeError,
      "callTool() expects a tool made by tool(), got an object",
    );
    await expectError(
      () => callTool((() => 1) as never, {}),
      TypeError,
      "callTool() expects a tool made by tool(), got a function",
    );
  });

  it("throws TypeError when ctx is given and is not a ToolContext", async () => {
    const t = tool(({ n }) => n, {
      name: "t",
      description: "d",
      input: z.object({ n: z.number() }),
    });
    const message = (got: string) =>
      `callTool() expects as ctx a ToolContext (ToolContext.empty({ context, ... }) outside a graph, or the ctx a node or tool receives), got ${got}`;
    await expectError(() => callTool(t, { n: 1 }, {} as never), TypeError, message("an object"));
    await expectError(() => callTool(t, { n: 1 }, null as never), TypeError, message("null"));
    await expectError(
      () => callTool(t, { n: 1 }, "ctx" as never),
      TypeError,
      message('a string ("ctx")'),
    );
    expect(await callTool(t, { n: 1 }, undefined)).toEqual({ value: 1, arguments: { n: 1 } });
  });

  it("raises ValidationError for wrong arguments, with the issues", async () => {
    const e = await expectError(
      () => callTool(checkStock, { sku: 1 }, inventory),
      ValidationError,
      'Invalid arguments for tool "check_stock": sku: Invalid input: expected string, received number',
    );
    expect(e.issues).toEqual([
      { path: ["sku"], message: "Invalid input: expected string, received number" },
    ]);
  });

  it("rejects unknown and missing arguments", async () => {
    const e = await expectError(
      () => callTool(checkStock, { sku: "MUG-1", color: "red" }, inventory),
      ValidationError,
      'Invalid arguments for tool "check_stock": Unrecognized key: "color"',
    );
    expect(e.issues).toEqual([{ path: [], message: 'Unrecognized key: "color"' }]);
    await expectError(
      () => callTool(checkStock, {}, inventory),
      ValidationError,
      'Invalid arguments for tool "check_stock": sku: Invalid input: expected string, received undefined',
    );
  });

  it("joins several issues with '; ' and nested paths with '.'", async () => {
    const t = tool(() => 1, {
      name: "t",
      description: "d",
      input: z.object({ a: z.string(), items: z.array(z.object({ qty: z.number() })) }),
    });
    await expectError(
      () => callTool(t, { a: 1, items: [{ qty: "x" }] }),
      ValidationError,
      'Invalid arguments for tool "t": a: Invalid input: expected string, received number; items.0.qty: Invalid input: expected number, received string',
    );
  });

  it("validates the result against output", async () => {
    const bad = tool(() => "twelve" as unknown as number, {
      name: "bad",
      description: "d",
      output: z.number(),
    });
    const e = await expectError(
      () => callTool(bad, {}),
      ValidationError,
      'Invalid result from tool "bad": Invalid input: expected number, received string',
    );
    expect(e.issues).toEqual([
      { path: [], message: "Invalid input: expected number, received string" },
    ]);
  });

  it("returns the output schema's parsed value", async () => {
    const t = tool(() => ({ a: 1 }), {
      name: "t",
      description: "d",
      output: z.object({ a: z.number(), b: z.string().default("x") }),
    });
    expect((await callTool(t, {})).value).toEqual({ a: 1, b: "x" });
  });

  it("accepts any JSON result without output, and refuses a result that is not JSON", async () => {
    const json = tool(() => ({ a: [1, "x", null, true] }), { name: "json", description: "d" });
    expect((await callTool(json, {})).value).toEqual({ a: [1, "x", null, true] });
    const date = tool(() => ({ at: [new Date(0)] }), { name: "date", description: "d" });
    const e = await expectError(
      () => callTool(date, {}),
      ValidationError,
      'Invalid result from tool "date": at[0]: a Date instance is not plain JSON data; a tool result must be JSON',
    );
    expect(e.issues).toEqual([
      { path: ["at", 0], message: "a Date instance is not plain JSON data" },
    ]);
    const nan = tool(() => Number.NaN, { name: "nan", description: "d" });
    await expectError(
      () => callTool(nan, {}),
      ValidationError,
      'Invalid result from tool "nan": NaN is not a finite number; a tool result must be JSON',
    );
  });

  it("gives null for a tool that returns nothing", async () => {
    const t = tool(() => {}, { name: "noop", description: "d" });
    expect(await callTool(t, {})).toEqual({ value: null, arguments: {} });
  });

  it("rethrows the tool's own error unchanged", async () => {
    const boom = new RangeError("boom");
    const t = tool(
      () => {
        throw boom;
      },
      { name: "t", description: "d" },
    );
    expect(await caught(() => callTool(t, {}))).toBe(boom);
    const a = tool(
      async () => {
        throw boom;
      },
      { name: "a", description: "d" },
    );
    expect(await caught(() => callTool(a, {}))).toBe(boom);
  });

  it("raises ContextNotProvidedError when a tool reads a context it was not given", async () => {
    const e = await expectError(
      () => callTool(checkStock, { sku: "MUG-1" }),
      ContextNotProvidedError,
      'Tool "check_stock" read ctx.context, but it was called outside a graph without one; in a graph pass it as invoke(input, { context }), outside give callTool a ToolContext.empty({ context })',
    );
    expect(e.name).toBe("ContextNotProvidedError");
  });
});

/** Middleware that records its hook calls into `log`. */
function recorder(name: string, log: string[], extra: Partial<Middleware> = {}): Middleware {
  return {
    name,
    beforeTool(args, ctx) {
      log.push(`${name}.beforeTool ${JSON.stringify(args)} ${ctx.tool.name} ${ctx.toolCallId}`);
      return extra.beforeTool?.(args, ctx);
    },
    onToolError(error, ctx) {
      log.push(`${name}.onToolError ${(error as Error).message} ${ctx.tool.name}`);
      return extra.onToolError?.(error, ctx);
    },
  };
}

describe("callTool with middleware", () => {
  it("runs beforeTool hooks in order, each replacing the arguments, and returns the final ones", async () => {
    const log: string[] = [];
    const upper = recorder("upper", log, {
      beforeTool: (args) => ({ ...args, sku: String(args.sku).toUpperCase() }),
    });
    const keep = recorder("keep", log);
    const ctx = ToolContext.empty<Inventory>({
      context: { stock: { "MUG-1": 12 } },
      middleware: [upper, keep, { name: "no hooks" }, null, 3],
      toolCallId: "call_1",
    });
    expect(await callTool(checkStock, { sku: "mug-1" }, ctx)).toEqual({
      value: 12,
      arguments: { sku: "MUG-1" },
    });
    expect(log).toEqual([
      'upper.beforeTool {"sku":"mug-1"} check_stock call_1',
      'keep.beforeTool {"sku":"MUG-1"} check_stock call_1',
    ]);
  });

  it("gives hooks the tool, the call id and the tool context", async () => {
    let seen: ToolMiddlewareContext | null = null;
    const ctx = ToolContext.empty({
      middleware: [
        {
          beforeTool(_a: JsonObject, c: ToolMiddlewareContext) {
            seen = c;
          },
        },
      ],
      toolCallId: "c9",
    });
    await callTool(getOrderStatus, { orderId: "x" }, ctx);
    expect(seen).toEqual({ tool: getOrderStatus, toolCallId: "c9", toolContext: ctx });
  });

  it("validates the arguments after beforeTool", async () => {
    const ctx = ToolContext.empty({ middleware: [{ beforeTool: () => ({ orderId: 5 }) }] });
    await expectError(
      () => callTool(getOrderStatus, { orderId: "A-1001" }, ctx),
      ValidationError,
      'Invalid arguments for tool "get_order_status": orderId: Invalid input: expected string, received number',
    );
  });

  it("refuses a beforeTool result that is not an object", async () => {
    const ctx = ToolContext.empty({ middleware: [{ name: "broken", beforeTool: () => "x" }] });
    await expectError(
      () => callTool(getOrderStatus, { orderId: "A-1001" }, ctx),
      TypeError,
      'middleware broken beforeTool returned a string ("x") for tool "get_order_status", not an arguments object; return new arguments, or nothing to keep them',
    );
  });

  it("propagates ToolDeniedError from beforeTool without calling the tool or onToolError", async () => {
    const log: string[] = [];
    let called = false;
    const t = tool(
      () => {
        called = true;
        return 1;
      },
      { name: "t", description: "d" },
    );
    const denied = new ToolDeniedError("no", { tool: "t", reason: "not allowed" });
    const ctx = ToolContext.empty({
      middleware: [
        recorder("deny", log, {
          beforeTool: () => {
            throw denied;
          },
        }),
        recorder("after", log),
      ],
    });
    expect(await caught(() => callTool(t, {}, ctx))).toBe(denied);
    expect(called).toBe(false);
    expect(log).toEqual(["deny.beforeTool {} t null"]);
  });

  it("sends a tool error through every onToolError hook in order, then rethrows it", async () => {
    const log: string[] = [];
    const boom = new Error("boom");
    const t = tool(
      () => {
        throw boom;
      },
      { name: "t", description: "d" },
    );
    const ctx = ToolContext.empty({ middleware: [recorder("a", log), recorder("b", log)] });
    expect(await caught(() => callTool(t, {}, ctx))).toBe(boom);
    expect(log).toEqual([
      "a.beforeTool {} t null",
      "b.beforeTool {} t null",
      "a.onToolError boom t",
      "b.onToolError boom t",
    ]);
  });

  it("lets onToolError hooks see a result ValidationError first", async () => {
    const errors: unknown[] = [];
    const t = tool(() => "x" as unknown as number, {
      name: "t",
      description: "d",
      output: z.number(),
    });
    const ctx = ToolContext.empty({
      middleware: [{ onToolError: (e: unknown) => void errors.push(e) }],
    });
    const e = await caught(() => callTool(t, {}, ctx));
    expect(e).toBeInstanceOf(ValidationError);
    expect(errors).toEqual([e]);
  });

  it("does not send argument errors to onToolError", async () => {
    const errors: unknown[] = [];
    const ctx = ToolContext.empty({
      middleware: [{ onToolError: (e: unknown) => void errors.push(e) }],
    });
    await caught(() => callTool(getOrderStatus, {}, ctx));
    expect(errors).toEqual([]);
  });

  it("lets GraphInterrupt from the tool pass untouched, past onToolError", async () => {
    const errors: unknown[] = [];
    const t = tool((_a, ctx) => ctx.interrupt({ question: "ok?" }), {
      name: "ask",
      description: "d",
    });
    const ctx = ToolContext.empty({
      toolCallId: "c1",
      middleware: [{ onToolError: (e: unknown) => void errors.push(e) }],
    });
    const e = await caught(() => callTool(t, {}, ctx));
    expect(e).toBeInstanceOf(GraphInterrupt);
    expect((e as GraphInterrupt).interrupts).toEqual([{ key: "#c1", value: { question: "ok?" } }]);
    expect(errors).toEqual([]);
  });

  it("lets GraphInterrupt from beforeTool pass untouched", async () => {
    const gi = new GraphInterrupt([{ key: "k", value: "approve?" }]);
    const ctx = ToolContext.empty({
      middleware: [
        {
          beforeTool: () => {
            throw gi;
          },
        },
      ],
    });
    expect(await caught(() => callTool(getOrderStatus, { orderId: "x" }, ctx))).toBe(gi);
  });

  it("awaits async hooks", async () => {
    const ctx = ToolContext.empty({
      middleware: [{ beforeTool: async () => ({ orderId: "A-1001" }) }],
    });
    expect((await callTool(getOrderStatus, { orderId: "nope" }, ctx)).value).toBe("shipped");
  });
});

describe("toolResultContent", () => {
  it("wraps the result as compact JSON", () => {
    expect(toolResultContent("shipped")).toBe('{"result":"shipped"}');
    expect(toolResultContent(12)).toBe('{"result":12}');
    expect(toolResultContent(null)).toBe('{"result":null}');
    expect(toolResultContent({ a: [1, { b: "c" }] })).toBe('{"result":{"a":[1,{"b":"c"}]}}');
  });
});
