import { describe, expect, it } from "vitest";
import { z } from "zod";
import { caught, expectError } from "../../test/helpers.js";
import { ContextNotProvidedError } from "../errors/index.js";
import {
  GraphInterrupt,
  type NodeContext,
  type StreamMode,
  TaskContext,
} from "../graph/context.js";
import { END, Graph, node, START } from "../graph/index.js";
import type { JsonValue } from "../json/index.js";
import { callTool } from "./call-tool.js";
import { tool } from "./tool.js";
import { emptyToolContext, ToolContext } from "./tool-context.js";

interface Made {
  ctx: TaskContext;
  emitted: unknown[];
}

function nodeContext(
  options: {
    context?: { value: unknown; given: boolean };
    resumeValues?: Record<string, JsonValue>;
    threadId?: string | null;
    modes?: StreamMode[];
  } = {},
): Made {
  const emitted: unknown[] = [];
  const controller = new AbortController();
  const modes = options.modes ?? ["custom"];
  const ctx = new TaskContext(
    "shop",
    "run-1",
    "root-1",
    "run-1",
    options.threadId === undefined ? "thread-1" : options.threadId,
    "main",
    3,
    "act",
    "3:0",
    ["mw"],
    { files: true },
    null,
    null,
    modes,
    {},
    options.resumeValues ?? {},
    controller.signal,
    {
      emit: (mode, nodeName, step, taskId, data) =>
        emitted.push({ mode, nodeName, step, taskId, data }),
      wants: (mode) => modes.includes(mode),
      saveCache: async () => {},
      forward: () => {},
      subAgents: () => {
        throw new Error("no sub-agents in this test");
      },
    },
    options.context ?? { value: undefined, given: false },
  );
  return { ctx, emitted };
}

describe("ToolContext.fromNodeContext", () => {
  it("copies the run information of the node", () => {
    const { ctx } = nodeContext({ context: { value: { user: "ada" }, given: true } });
    const state = { messages: [] };
    const t = ToolContext.fromNodeContext(ctx, state, { toolCallId: "call_1" });
    expect({
      graphName: t.graphName,
      node: t.node,
      state: t.state,
      threadId: t.threadId,
      runId: t.runId,
      rootRunId: t.rootRunId,
      taskId: t.taskId,
      toolCallId: t.toolCallId,
      middleware: t.middleware,
      workspace: t.workspace,
      context: t.context,
      hasContext: t.hasContext,
      signal: t.signal,
    }).toEqual({
      graphName: "shop",
      node: "act",
      state,
      threadId: "thread-1",
      runId: "run-1",
      rootRunId: "root-1",
      taskId: "3:0",
      toolCallId: "call_1",
      middleware: ["mw"],
      workspace: { files: true },
      context: { user: "ada" },
      hasContext: true,
      signal: ctx.signal,
    });
    expect(t.state).toBe(state);
    expect(ToolContext.fromNodeContext(ctx, state).toolCallId).toBeNull();
  });

  it("throws ContextNotProvidedError naming the tool, node and graph", async () => {
    const { ctx } = nodeContext();
    const t = ToolContext.fromNodeContext(ctx, {}, { toolCallId: "c", toolName: "check_stock" });
    expect(t.hasContext).toBe(false);
    await expectError(
      () => t.context,
      ContextNotProvidedError,
      'Tool "check_stock" called by node "act" of graph "shop" read ctx.context, but the run was started without one; pass it as invoke(input, { context }) (and again on resume: it is never stored)',
    );
    await expectError(
      () => ToolContext.fromNodeContext(ctx, {}).context,
      ContextNotProvidedError,
      'A tool called by node "act" of graph "shop" read ctx.context, but the run was started without one; pass it as invoke(input, { context }) (and again on resume: it is never stored)',
    );
  });

  it("returns a falsy context that was given", () => {
    const { ctx } = nodeContext({ context: { value: 0, given: true } });
    expect(ToolContext.fromNodeContext(ctx, {}).context).toBe(0);
  });

  it("emits custom events through the node", () => {
    const { ctx, emitted } = nodeContext();
    ToolContext.fromNodeContext(ctx, {}, { toolCallId: "c" }).emit({ progress: 0.5 });
    expect(emitted).toEqual([
      { mode: "custom", nodeName: "act", step: 3, taskId: "3:0", data: { progress: 0.5 } },
    ]);
  });

  it("scopes default interrupt keys to the tool call, counting repeats", async () => {
    const { ctx } = nodeContext();
    const a = ToolContext.fromNodeContext(ctx, {}, { toolCallId: "call_a" });
    const b = ToolContext.fromNodeContext(ctx, {}, { toolCallId: "call_b" });
    const keys = async (f: () => unknown) => ((await caught(f)) as GraphInterrupt).interrupts;
    expect(await keys(() => a.interrupt("qa"))).toEqual([{ key: "3:0#call_a", value: "qa" }]);
    expect(await keys(() => b.interrupt("qb"))).toEqual([{ key: "3:0#call_b", value: "qb" }]);
    expect(await keys(() => a.interrupt("qa2"))).toEqual([{ key: "3:0#call_a#1", value: "qa2" }]);
    expect(await keys(() => a.interrupt("qa3"))).toEqual([{ key: "3:0#call_a#2", value: "qa3" }]);
    expect(await keys(() => a.interrupt("k", { key: "mine" }))).toEqual([
      { key: "mine", value: "k" },
    ]);
  });

  it("refuses an interrupt key that is not a non-empty string, naming the tool and node", async () => {
    const { ctx } = nodeContext();
    const t = ToolContext.fromNodeContext(ctx, {}, { toolCallId: "c", toolName: "ask" });
    await expectError(
      () => t.interrupt("q", { key: 5 as never }),
      TypeError,
      'Tool "ask" called by node "act" of graph "shop": ctx.interrupt(value, { key }): key must be a non-empty string, got a number (5); omit it for the default key',
    );
    await expectError(
      () => ToolContext.empty({ toolName: "ask" }).interrupt("q", "mine" as never),
      TypeError,
      'Tool "ask" called outside a graph: ctx.interrupt(value, options): options must be an object { key? }, got a string (mine)',
    );
    await expectError(
      () => ctx.interrupt("q", { key: null as never }),
      TypeError,
      'Node "act" of graph "shop": ctx.interrupt(value, { key }): key must be a non-empty string, got null; omit it for the default key',
    );
  });

  it("returns the answers of a resume under the same keys", () => {
    const { ctx } = nodeContext({ resumeValues: { "3:0#call_a": "yes", "3:0#call_a#1": 2 } });
    const a = ToolContext.fromNodeContext(ctx, {}, { toolCallId: "call_a" });
    expect(a.interrupt("first?")).toBe("yes");
    expect(a.interrupt("second?")).toBe(2);
    expect(() => a.interrupt("third?")).toThrow(GraphInterrupt);
  });

  it("uses the node's default key without a tool call id", async () => {
    const { ctx } = nodeContext();
    const t = ToolContext.fromNodeContext(ctx, {});
    const e = (await caught(() => t.interrupt("q"))) as GraphInterrupt;
    expect(e.interrupts).toEqual([{ key: "3:0#0", value: "q" }]);
  });

  it("works inside a running graph with callTool", async () => {
    const whoAmI = tool(
      (_a, ctx: ToolContext<{ user: string }>) => {
        ctx.emit({ tool: "who_am_i" });
        return `${ctx.context.user} via ${ctx.node} (${ctx.toolCallId})`;
      },
      { name: "who_am_i", description: "Who is asking." },
    );
    const act = node(
      async (_s: { out: string | null }, ctx) => {
        const tctx = ToolContext.fromNodeContext<{ user: string }>(
          ctx as NodeContext<{ user: string }>,
          _s,
          { toolCallId: "c1" },
        );
        return { out: (await callTool(whoAmI, {}, tctx)).value as string };
      },
      { name: "act" },
    );
    const g = new Graph(null, { name: "g" }).flow(START.to(act), act.to(END));
    const events: unknown[] = [];
    for await (const e of g.stream(
      { out: null },
      { modes: ["custom"], context: { user: "ada" } },
    )) {
      events.push({ mode: e.mode, node: e.node, data: e.data });
    }
    expect(events).toEqual([{ mode: "custom", node: "act", data: { tool: "who_am_i" } }]);
    const { state } = await g.invoke({ out: null }, { context: { user: "ada" } });
    expect(state).toEqual({ out: "ada via act (c1)" });
  });
});

describe("ToolContext.empty", () => {
  it("has no graph, run or context by default", async () => {
    const t = emptyToolContext();
    expect({
      graphName: t.graphName,
      node: t.node,
      state: t.state,
      threadId: t.threadId,
      runId: t.runId,
      rootRunId: t.rootRunId,
      taskId: t.taskId,
      toolCallId: t.toolCallId,
      middleware: t.middleware,
      workspace: t.workspace,
      hasContext: t.hasContext,
      aborted: t.signal.aborted,
    }).toEqual({
      graphName: null,
      node: null,
      state: null,
      threadId: null,
      runId: null,
      rootRunId: null,
      taskId: "",
      toolCallId: null,
      middleware: [],
      workspace: null,
      hasContext: false,
      aborted: false,
    });
    await expectError(
      () => t.context,
      ContextNotProvidedError,
      "A tool read ctx.context, but it was called outside a graph without one; in a graph pass it as invoke(input, { context }), outside give callTool a ToolContext.empty({ context })",
    );
    expect(() => t.emit("dropped")).not.toThrow();
    expect(ToolContext.empty).toBe(emptyToolContext);
  });

  it("takes a context, state, workspace, signal, emit sink and answers", () => {
    const emitted: unknown[] = [];
    const controller = new AbortController();
    const t = ToolContext.empty({
      context: { user: "ada" },
      state: { n: 1 },
      workspace: "ws",
      signal: controller.signal,
      onEmit: (d) => emitted.push(d),
      toolCallId: "c1",
      resumeValues: { "#c1": "yes" },
    });
    expect(t.context).toEqual({ user: "ada" });
    expect(t.hasContext).toBe(true);
    expect(t.state).toEqual({ n: 1 });
    expect(t.workspace).toBe("ws");
    expect(t.signal).toBe(controller.signal);
    t.emit({ a: 1 });
    expect(emitted).toEqual([{ a: 1 }]);
    expect(t.interrupt("ok?")).toBe("yes");
    expect(() => t.interrupt("again?")).toThrow(GraphInterrupt);
  });

  it("counts default keys without a tool call id", async () => {
    const t = ToolContext.empty();
    const first = (await caught(() => t.interrupt("a"))) as GraphInterrupt;
    const second = (await caught(() => t.interrupt("b"))) as GraphInterrupt;
    expect([first.interrupts, second.interrupts]).toEqual([
      [{ key: "#0", value: "a" }],
      [{ key: "#1", value: "b" }],
    ]);
  });

  it("is what callTool uses when given no context", async () => {
    const t = tool((_a, ctx) => ({ node: ctx.node, taskId: ctx.taskId, has: ctx.hasContext }), {
      name: "t",
      description: "d",
      output: z.object({ node: z.string().nullable(), taskId: z.string(), has: z.boolean() }),
    });
    expect((await callTool(t, {})).value).toEqual({ node: null, taskId: "", has: false });
  });
});
