import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ToolDeniedError } from "../errors/index.js";
import type { Middleware } from "../middleware/types.js";
import { tool } from "../tools/tool.js";
import { call, getStatus, pending, runner, toolMessages } from "./tool-runner.fixture.js";

describe("toolRunner: results", () => {
  it("appends a ToolMessage per call in call order and clears the calls", async () => {
    const slow = tool(
      async ({ ms }) => {
        await new Promise((r) => setTimeout(r, ms));
        return ms;
      },
      { name: "slow", description: "Waits.", input: z.object({ ms: z.number() }) },
    );
    const { state } = await runner([getStatus, slow]).invoke(
      pending(
        call("c1", "slow", { ms: 40 }),
        call("c2", "get_status", { orderId: "A-1" }),
        call("c3", "slow", { ms: 1 }),
      ),
    );
    expect(toolMessages(state.messages)).toEqual([
      { type: "tool", content: '{"result":40}', toolCallId: "c1", name: "slow", arguments: null },
      {
        type: "tool",
        content: '{"result":"shipped"}',
        toolCallId: "c2",
        name: "get_status",
        arguments: null,
      },
      { type: "tool", content: '{"result":1}', toolCallId: "c3", name: "slow", arguments: null },
    ]);
    expect(state.toolCalls).toEqual([]);
  });

  it("runs the calls of one turn concurrently", async () => {
    // Each tool waits until the other has started: run one after the other, they never finish.
    const started = new Set<string>();
    const waiters: Array<() => void> = [];
    const meet = (me: string, other: string) =>
      new Promise<string>((resolve) => {
        started.add(me);
        for (const w of waiters.splice(0)) w();
        const check = () =>
          started.has(other) ? resolve(`${me} met ${other}`) : waiters.push(check);
        check();
      });
    const ping = tool(() => meet("ping", "pong"), { name: "ping", description: "Ping." });
    const pong = tool(() => meet("pong", "ping"), { name: "pong", description: "Pong." });
    const { state } = await runner([ping, pong]).invoke(
      pending(call("a", "ping"), call("b", "pong")),
    );
    expect(toolMessages(state.messages).map((m) => m.content)).toEqual([
      '{"result":"ping met pong"}',
      '{"result":"pong met ping"}',
    ]);
  });

  it("records the arguments the tool ran with when beforeTool changed them", async () => {
    const echo = tool(({ orderId }) => orderId, {
      name: "echo",
      description: "Echo.",
      input: z.object({ orderId: z.string() }),
    });
    const upper: Middleware = {
      beforeTool: (args) =>
        args.orderId === "a-1" ? { orderId: String(args.orderId).toUpperCase() } : { ...args },
    };
    const { state } = await runner([echo], undefined, [upper]).invoke(
      pending(call("c1", "echo", { orderId: "a-1" }), call("c2", "echo", { orderId: "B-2" })),
    );
    expect(toolMessages(state.messages)).toEqual([
      {
        type: "tool",
        content: '{"result":"A-1"}',
        toolCallId: "c1",
        name: "echo",
        arguments: { orderId: "A-1" },
      },
      {
        type: "tool",
        content: '{"result":"B-2"}',
        toolCallId: "c2",
        name: "echo",
        arguments: null,
      },
    ]);
  });

  it("sends a denied call to the model as a tool message with the reason, whatever toolErrors says", async () => {
    const deny: Middleware = {
      beforeTool(_args, ctx) {
        throw new ToolDeniedError("denied by a person", {
          tool: ctx.tool.name,
          reason: "The user said no.",
        });
      },
    };
    const { state } = await runner([getStatus], "raise", [deny]).invoke(
      pending(call("c1", "get_status", { orderId: "A-1" })),
    );
    expect(toolMessages(state.messages)).toEqual([
      {
        type: "tool",
        content: "The user said no.",
        toolCallId: "c1",
        name: "get_status",
        arguments: null,
      },
    ]);
  });
});
