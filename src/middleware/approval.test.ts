import { describe, expect, it } from "vitest";
import { z } from "zod";
import { caught, expectError } from "../../test/helpers.js";
import { ToolDeniedError, ValueError } from "../errors/index.js";
import { GraphInterrupt } from "../graph/context.js";
import type { JsonValue } from "../json/index.js";
import { callTool } from "../tools/call-tool.js";
import { tool } from "../tools/tool.js";
import { ToolContext } from "../tools/tool-context.js";
import { ApprovalAnswer, ApprovalMiddleware } from "./approval.js";

const ran: Array<{ orderId: string; amount: number }> = [];
const refund = tool(
  (args) => {
    ran.push(args);
    return `refunded ${args.amount}`;
  },
  {
    name: "refund",
    description: "Refund an order.",
    input: z.object({ orderId: z.string(), amount: z.number() }),
  },
);
const lookup = tool(() => "shipped", { name: "lookup", description: "Look up an order." });

const ARGS = { orderId: "A-1", amount: 250 };

function ctx(answer?: JsonValue, question?: string) {
  const approval = ApprovalMiddleware({
    tools: ["refund"],
    ...(question === undefined ? {} : { question }),
  });
  return ToolContext.empty({
    middleware: [approval],
    toolCallId: "c1",
    toolName: "refund",
    ...(answer === undefined ? {} : { resumeValues: { "#c1": answer } }),
  });
}

describe("ApprovalMiddleware", () => {
  it("pauses before a listed tool with { tool, arguments, toolCallId, question }", async () => {
    ran.length = 0;
    const e = await caught(() => callTool(refund, ARGS, ctx()));
    expect(e).toBeInstanceOf(GraphInterrupt);
    expect((e as GraphInterrupt).interrupts).toEqual([
      {
        key: "#c1",
        value: {
          tool: "refund",
          arguments: ARGS,
          toolCallId: "c1",
          question: 'Run tool "refund" with {"orderId":"A-1","amount":250}?',
        },
      },
    ]);
    expect(ran).toEqual([]);
  });

  it("takes the question as a string or a function of the tool and the arguments", async () => {
    const e = (await caught(() =>
      callTool(refund, ARGS, ctx(undefined, "Refund it?")),
    )) as GraphInterrupt;
    expect((e.interrupts[0]!.value as { question: string }).question).toBe("Refund it?");
    const fn = ApprovalMiddleware({
      tools: ["refund"],
      question: (t, a) => `${t} ${String(a.amount)} EUR?`,
    });
    const e2 = (await caught(() =>
      callTool(refund, ARGS, ToolContext.empty({ middleware: [fn], toolCallId: "c1" })),
    )) as GraphInterrupt;
    expect((e2.interrupts[0]!.value as { question: string }).question).toBe("refund 250 EUR?");
  });

  it("does not ask about tools it does not list", async () => {
    const r = await callTool(lookup, {}, ctx());
    expect(r).toEqual({ value: "shipped", arguments: {} });
  });

  it.each([["yes"], [true], [{ approved: true }], [{ approved: true, arguments: null }]])(
    "runs the call on %j",
    async (answer) => {
      ran.length = 0;
      const r = await callTool(refund, ARGS, ctx(answer as JsonValue));
      expect(r).toEqual({ value: "refunded 250", arguments: ARGS });
      expect(ran).toEqual([ARGS]);
    },
  );

  it("runs the call with edited arguments, which callTool returns", async () => {
    ran.length = 0;
    const r = await callTool(
      refund,
      ARGS,
      ctx({ approved: true, arguments: { orderId: "A-1", amount: 100 } }),
    );
    expect(r).toEqual({ value: "refunded 100", arguments: { orderId: "A-1", amount: 100 } });
    expect(ran).toEqual([{ orderId: "A-1", amount: 100 }]);
  });

  it("validates edited arguments with the tool's input schema", async () => {
    const e = await caught(() =>
      callTool(refund, ARGS, ctx({ approved: true, arguments: { orderId: "A-1" } })),
    );
    expect(e.message).toBe(
      'Invalid arguments for tool "refund": amount: Invalid input: expected number, received undefined',
    );
  });

  it.each([
    ["no", "Tool call denied by a person"],
    [false, "Tool call denied by a person"],
    [{ approved: false }, "Tool call denied by a person"],
    [{ approved: false, reason: null }, "Tool call denied by a person"],
    [{ approved: false, reason: "too much" }, "Tool call denied by a person: too much"],
  ])("denies the call on %j with ToolDeniedError", async (answer, reason) => {
    ran.length = 0;
    const e = await expectError(
      () => callTool(refund, ARGS, ctx(answer as JsonValue)),
      ToolDeniedError,
      `${reason} (tool "refund" was not called)`,
    );
    expect(e.reason).toBe(reason);
    expect(e.tool).toBe("refund");
    expect(e.toolCallId).toBe("c1");
    expect(ran).toEqual([]);
  });

  it.each([
    [
      "maybe",
      'ApprovalMiddleware: invalid answer for tool "refund" (call "c1"): got "maybe"; answer "yes", "no", true, false, { approved: true }, { approved: true, arguments: { ... } } or { approved: false, reason: "..." }',
    ],
    [
      null,
      'ApprovalMiddleware: invalid answer for tool "refund" (call "c1"): got null; answer "yes", "no", true, false, { approved: true }, { approved: true, arguments: { ... } } or { approved: false, reason: "..." }',
    ],
    [
      { aproved: true },
      'ApprovalMiddleware: invalid answer for tool "refund" (call "c1"): key "approved" must be true or false; answer "yes", "no", true, false, { approved: true }, { approved: true, arguments: { ... } } or { approved: false, reason: "..." }',
    ],
    [
      { approved: "yes" },
      'ApprovalMiddleware: invalid answer for tool "refund" (call "c1"): key "approved" must be true or false; answer "yes", "no", true, false, { approved: true }, { approved: true, arguments: { ... } } or { approved: false, reason: "..." }',
    ],
    [
      { approved: true, arguments: [1] },
      'ApprovalMiddleware: invalid answer for tool "refund" (call "c1"): key "arguments": Invalid input: expected record, received array; answer "yes", "no", true, false, { approved: true }, { approved: true, arguments: { ... } } or { approved: false, reason: "..." }',
    ],
    [
      { approved: false, reason: 3 },
      'ApprovalMiddleware: invalid answer for tool "refund" (call "c1"): key "reason": Invalid input: expected string, received number; answer "yes", "no", true, false, { approved: true }, { approved: true, arguments: { ... } } or { approved: false, reason: "..." }',
    ],
    [
      { approved: false, why: "x" },
      'ApprovalMiddleware: invalid answer for tool "refund" (call "c1"): unknown key "why"; answer "yes", "no", true, false, { approved: true }, { approved: true, arguments: { ... } } or { approved: false, reason: "..." }',
    ],
  ])("refuses the answer %j with a ValueError naming the key", async (answer, message) => {
    ran.length = 0;
    await expectError(() => callTool(refund, ARGS, ctx(answer as JsonValue)), ValueError, message);
    expect(ran).toEqual([]);
  });

  it("exports the answer schema", () => {
    expect(ApprovalAnswer.safeParse({ approved: false, reason: "x" }).success).toBe(true);
    expect(ApprovalAnswer.safeParse("yes").success).toBe(true);
    expect(ApprovalAnswer.safeParse("maybe").success).toBe(false);
  });

  it("checks its options", () => {
    const msg =
      'ApprovalMiddleware: tools must be a non-empty array of tool names, such as { tools: ["refund"] }';
    expect(() => ApprovalMiddleware({ tools: [] })).toThrow(msg);
    expect(() => ApprovalMiddleware({ tools: [""] })).toThrow(msg);
    expect(() => ApprovalMiddleware(null as unknown as { tools: string[] })).toThrow(msg);
    expect(() => ApprovalMiddleware({ tools: ["a"], question: 3 as unknown as string })).toThrow(
      "ApprovalMiddleware: question must be a string or a function (tool, args) => string, got number",
    );
    const m = ApprovalMiddleware({ tools: ["a", "a", "b"] });
    expect(m.name).toBe("ApprovalMiddleware");
    expect(m.toolNames).toEqual(["a", "b"]);
  });
});
