import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Message } from "../chat/index.js";
import { RunCancelledError } from "../errors/index.js";
import { GraphInterrupt, type NodeContext } from "../graph/context.js";
import { Graph } from "../graph/graph.js";
import { START } from "../graph/node.js";
import { END } from "../graph/routing.js";
import type { JsonObject, JsonValue } from "../json/index.js";
import { MemoryStateStore } from "../stores/index.js";
import { tool } from "../tools/tool.js";
import { AgentState } from "./agent-state.js";
import { call, pending, rejection, runner, toolMessages } from "./tool-runner.fixture.js";
import { toolRunner } from "./tool-runner.js";

describe("toolRunner: cancellation", () => {
  it("stops promptly when the run is cancelled during a slow tool", async () => {
    let started!: () => void;
    const running = new Promise<void>((r) => {
      started = r;
    });
    const slow = tool(
      async () => {
        started();
        await new Promise((r) => setTimeout(r, 10_000).unref());
        return "late";
      },
      { name: "slow", description: "Slow." },
    );
    const controller = new AbortController();
    const run = runner([slow], "return").invoke(pending(call("c1", "slow")), {
      signal: controller.signal,
    });
    await running;
    const t0 = Date.now();
    controller.abort();
    expect(await rejection(run)).toBeInstanceOf(RunCancelledError);
    expect(Date.now() - t0).toBeLessThan(500);
  });

  it("a tool that fails because the run was cancelled does not become a tool message", async () => {
    const aware = tool(
      (_args, ctx) =>
        new Promise((_, reject) => {
          ctx.signal.addEventListener("abort", () => reject(new Error("aborted inside")));
        }),
      { name: "aware", description: "A." },
    );
    const controller = new AbortController();
    const run = runner([aware], "return").invoke(pending(call("c1", "aware")), {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 20);
    expect(await rejection(run)).toBeInstanceOf(RunCancelledError);
  });
});

describe("toolRunner: interrupts", () => {
  /** A node context for calling the node's handler directly (as the engine would, at task "3:0"). */
  function context(
    cache: JsonObject,
    resumeValues: Record<string, JsonValue> = {},
  ): { ctx: NodeContext; saves: JsonObject[] } {
    const saves: JsonObject[] = [];
    const ctx: NodeContext = {
      graphName: "g",
      runId: "run-1",
      rootRunId: "run-1",
      originRunId: "run-1",
      threadId: "t1",
      branchId: "main",
      step: 3,
      node: "act",
      taskId: "3:0",
      middleware: [],
      workspace: null,
      stateStore: null,
      stateSchema: AgentState,
      streamModes: [],
      cache,
      resumeValues,
      get context(): never {
        throw new Error("no context");
      },
      hasContext: false,
      signal: new AbortController().signal,
      emit() {},
      interrupt<T extends JsonValue = JsonValue>(value: JsonValue, options?: { key?: string }): T {
        const key = options?.key ?? "3:0#0";
        if (Object.hasOwn(resumeValues, key)) return resumeValues[key] as T;
        throw new GraphInterrupt([{ key, value }]);
      },
      async saveCache() {
        saves.push(JSON.parse(JSON.stringify(cache)) as JsonObject);
      },
    } as unknown as NodeContext;
    return { ctx, saves };
  }

  it("runs every call, keeps finished results in the cache, and raises one GraphInterrupt with all pauses", async () => {
    const runs: string[] = [];
    const approve = tool(
      ({ what }, ctx) => {
        runs.push(`approve ${what}`);
        const answer = ctx.interrupt({ question: `Allow ${what}?` });
        return `${what}: ${String(answer)}`;
      },
      { name: "approve", description: "Asks.", input: z.object({ what: z.string() }) },
    );
    const plain = tool(
      () => {
        runs.push("plain");
        return "done";
      },
      { name: "plain", description: "P." },
    );
    const act = toolRunner<typeof AgentState.State>("act", { tools: [approve, plain] });
    const state = {
      ...AgentState.State,
      messages: [],
      finalText: null,
      finalOutput: null,
      toolCalls: [
        call("a", "approve", { what: "refund" }),
        call("b", "plain"),
        call("c", "approve", { what: "email" }),
      ],
    };
    const first = context({});
    const error = await Promise.resolve(act.handler(state, first.ctx)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GraphInterrupt);
    expect((error as GraphInterrupt).interrupts).toEqual([
      { key: "3:0#a", value: { question: "Allow refund?" } },
      { key: "3:0#c", value: { question: "Allow email?" } },
    ]);
    expect(runs.sort()).toEqual(["approve email", "approve refund", "plain"]);
    expect(Object.keys(first.ctx.cache)).toEqual(["b"]);
    expect(first.ctx.cache.b).toMatchObject({
      type: "tool",
      content: '{"result":"done"}',
      toolCallId: "b",
    });
    expect(first.saves).toHaveLength(1);

    // Run again with the answers and the saved cache: "plain" does not run again.
    runs.length = 0;
    const second = context(first.ctx.cache, { "3:0#a": "yes", "3:0#c": "no" });
    const update = (await act.handler(state, second.ctx)) as { messages: Message[] };
    expect(runs.sort()).toEqual(["approve email", "approve refund"]);
    expect(update.messages.map((m) => m.content)).toEqual([
      '{"result":"refund: yes"}',
      '{"result":"done"}',
      '{"result":"email: no"}',
    ]);
  });

  it("a pausing tool pauses the run with the interrupts of every paused call", async () => {
    const ask = tool((_args, ctx) => ctx.interrupt("ok?"), { name: "ask", description: "Asks." });
    const result = await runner([ask]).invoke(pending(call("x", "ask"), call("y", "ask")));
    expect(result.status).toBe("interrupted");
    expect(result.interrupts).toEqual([
      { key: "0:0#x", value: "ok?", node: "act", taskId: "0:0" },
      { key: "0:0#y", value: "ok?", node: "act", taskId: "0:0" },
    ]);
  });

  it("on resume through a state store, calls that finished before the pause do not run again", async () => {
    const runs: string[] = [];
    const approve = tool(
      ({ what }, ctx) => {
        runs.push(what);
        return `${what}: ${String(ctx.interrupt(`Allow ${what}?`))}`;
      },
      { name: "approve", description: "Asks.", input: z.object({ what: z.string() }) },
    );
    const plain = tool(
      () => {
        runs.push("plain");
        return "done";
      },
      { name: "plain", description: "P." },
    );
    const act = toolRunner<typeof AgentState.State>("act", { tools: [approve, plain] });
    const graph = new Graph(AgentState, { stateStore: new MemoryStateStore() }).flow(
      START.to(act),
      act.to(END),
    );
    const first = await graph.invoke(
      pending(
        call("a", "approve", { what: "refund" }),
        call("b", "plain"),
        call("c", "approve", { what: "email" }),
      ),
      { threadId: "t" },
    );
    expect(first.status).toBe("interrupted");
    expect(first.interrupts.map((i) => [i.key, i.value])).toEqual([
      ["0:0#a", "Allow refund?"],
      ["0:0#c", "Allow email?"],
    ]);
    expect(runs.sort()).toEqual(["email", "plain", "refund"]);
    runs.length = 0;
    const second = await graph.invoke(null, {
      threadId: "t",
      resume: { "0:0#a": "yes", "0:0#c": "no" },
    });
    expect(second.status).toBe("completed");
    expect(runs.sort()).toEqual(["email", "refund"]);
    expect(toolMessages(second.state.messages).map((m) => m.content)).toEqual([
      '{"result":"refund: yes"}',
      '{"result":"done"}',
      '{"result":"email: no"}',
    ]);
  });
});
