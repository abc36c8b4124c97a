import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AIMessage, HumanMessage, type Message, type ToolCall } from "../chat/index.js";
import {
  ContextNotProvidedError,
  GraphConfigError,
  RunCancelledError,
  ToolDeniedError,
  ToolExecutionError,
  ToolGroupExecutionError,
  ValueError,
} from "../errors/index.js";
import { GraphInterrupt, type NodeContext } from "../graph/context.js";
import { Graph, type GraphState } from "../graph/graph.js";
import { type Node, START } from "../graph/node.js";
import { END } from "../graph/routing.js";
import type { JsonObject, JsonValue } from "../json/index.js";
import type { Middleware } from "../middleware/types.js";
import { defineState, messagesField, type StateDefinition } from "../state/define-state.js";
import { MemoryStateStore } from "../stores/index.js";
import { tool } from "../tools/tool.js";
import { AgentState } from "./agent-state.js";
import { type ToolErrorPolicy, toolRunner } from "./tool-runner.js";

class LookupError extends Error {
  override name = "LookupError";
}

const lookupOrder = tool(
  ({ orderId }): string => {
    throw new LookupError(`no order ${orderId}`);
  },
  {
    name: "lookup_order",
    description: "Find an order by id.",
    input: z.object({ orderId: z.string() }),
  },
);
const getStatus = tool(({ orderId }) => (orderId === "A-1" ? "shipped" : "unknown"), {
  name: "get_status",
  description: "Shipping status of an order.",
  input: z.object({ orderId: z.string() }),
  output: z.string(),
});

const call = (id: string, name: string, args: JsonObject = {}): ToolCall => ({
  id,
  name,
  arguments: args,
  argumentsError: null,
});

/** The state after a model turn that asked for `calls`. */
const pending = (...calls: ToolCall[]) => ({
  messages: [HumanMessage({ content: "q" }), AIMessage({ toolCalls: calls })],
  toolCalls: calls,
});

/** A graph of one node: START → node → END. */
function oneNode<D extends StateDefinition | null>(
  state: D,
  n: ReturnType<typeof toolRunner>,
  options: { name?: string; middleware?: Middleware[] } = {},
): Graph<D> {
  const any = n as unknown as Node<GraphState<D>>;
  return new Graph(state, { name: options.name ?? "g", middleware: options.middleware ?? [] }).flow(
    START.to(any),
    any.to(END),
  );
}

const runner = (
  tools: Parameters<typeof toolRunner>[1]["tools"],
  toolErrors?: ToolErrorPolicy,
  middleware: Middleware[] = [],
) =>
  oneNode(AgentState, toolRunner("act", { tools, ...(toolErrors ? { toolErrors } : {}) }), {
    middleware,
  });

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e: unknown) => e,
  );
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error("expected a throw");
}

/** Matches an error of exactly this class and message. */
function failure(cls: abstract new (...args: never[]) => Error, message: string) {
  return expect.objectContaining({ constructor: cls, message });
}

/** The tool messages a run appended, without ids. */
const toolMessages = (messages: Message[]) =>
  messages
    .filter((m) => m.type === "tool")
    .map((m) => {
      const { id: _, ...rest } = m;
      return rest;
    });

describe("toolRunner: checks when it is built", () => {
  it("refuses two different tools with one name, and the same tool twice", () => {
    const other = tool(() => 1, { name: "get_status", description: "Another." });
    expect(thrown(() => toolRunner("act", { tools: [getStatus, other] }))).toEqual(
      failure(
        GraphConfigError,
        'toolRunner "act": two different tools are named "get_status"; tool names must be unique',
      ),
    );
    expect(thrown(() => toolRunner("act", { tools: [getStatus, getStatus] }))).toEqual(
      failure(
        GraphConfigError,
        'toolRunner "act": tool "get_status" is listed twice; list each tool once',
      ),
    );
  });

  it("refuses a toolErrors policy that is neither raise, return nor a function", () => {
    expect(thrown(() => toolRunner("act", { tools: [], toolErrors: "ignore" as "raise" }))).toEqual(
      failure(
        ValueError,
        'toolRunner "act": toolErrors must be "raise", "return" or a function (error) => string, got "ignore"',
      ),
    );
  });
});

describe("toolRunner: checks when it runs, before any tool runs", () => {
  it("refuses a messages field that does not use addMessages", async () => {
    let ran = 0;
    const counted = tool(
      () => {
        ran++;
        return 1;
      },
      { name: "counted", description: "Counts." },
    );
    const State = defineState({
      messages: z.array(z.custom<Message>()).default([]),
      toolCalls: z.array(z.unknown()).default([]),
    });
    const graph = oneNode(State, toolRunner("act", { tools: [counted] }));
    expect(await rejection(graph.invoke({ toolCalls: [call("c1", "counted")] }))).toEqual(
      failure(
        GraphConfigError,
        'toolRunner "act" of graph "g": its messages field "messages" does not use addMessages; declare it with messagesField()',
      ),
    );
    expect(ran).toBe(0);
  });

  it("refuses a toolCallsField that is not declared", async () => {
    const State = defineState({ messages: messagesField() });
    const graph = oneNode(State, toolRunner("act", { tools: [], toolCallsField: "calls" }));
    expect(await rejection(graph.invoke({}))).toEqual(
      failure(
        GraphConfigError,
        'toolRunner "act" of graph "g" writes state field "calls" (toolCallsField), which the graph\'s state does not declare (declared fields: messages); declare it or set toolCallsField',
      ),
    );
  });

  it("uses renamed fields", async () => {
    const State = defineState({
      history: messagesField(),
      calls: z.array(z.unknown()).default([]),
    });
    const graph = oneNode(
      State,
      toolRunner("act", { tools: [getStatus], messagesField: "history", toolCallsField: "calls" }),
    );
    const { state } = await graph.invoke({ calls: [call("c1", "get_status", { orderId: "A-1" })] });
    expect(state.calls).toEqual([]);
    expect(toolMessages(state.history)).toEqual([
      {
        type: "tool",
        content: '{"result":"shipped"}',
        toolCallId: "c1",
        name: "get_status",
        arguments: null,
      },
    ]);
  });

  it("works on a plain-object state, writing the whole message list", async () => {
    const graph = oneNode(null, toolRunner("act", { tools: [getStatus] }));
    const { state } = await graph.invoke(pending(call("c1", "get_status", { orderId: "A-1" })));
    expect((state.messages as Message[]).map((m) => m.type)).toEqual(["human", "ai", "tool"]);
    expect(state.toolCalls).toEqual([]);
  });
});

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

describe("toolRunner: failures", () => {
  it("raises ToolExecutionError for an unknown tool", async () => {
    const error = await rejection(
      runner([getStatus, lookupOrder]).invoke(pending(call("call_1", "x"))),
    );
    expect(error).toEqual(
      failure(
        ToolExecutionError,
        'Tool call "call_1" asked for unknown tool "x"; known tools: get_status, lookup_order',
      ),
    );
    expect(error).toMatchObject({ tool: "x", toolCallId: "call_1" });
  });

  it("raises ToolExecutionError for arguments that do not match the schema", async () => {
    const error = await rejection(
      runner([getStatus]).invoke(pending(call("call_1", "get_status", { orderId: 7 }))),
    );
    expect(error).toEqual(
      failure(
        ToolExecutionError,
        'Invalid arguments for tool "get_status": orderId: Invalid input: expected string, received number (call "call_1")',
      ),
    );
    expect((error as Error).cause).toBeInstanceOf(Error);
  });

  it("raises ToolExecutionError for unknown arguments and for argument text that is not a JSON object", async () => {
    const extra = await rejection(
      runner([getStatus]).invoke(pending(call("c1", "get_status", { orderId: "A-1", more: 1 }))),
    );
    expect(extra).toBeInstanceOf(ToolExecutionError);
    expect((extra as Error).message).toMatch(/^Invalid arguments for tool "get_status": /);
    const bad: ToolCall = {
      id: "c2",
      name: "get_status",
      arguments: {},
      argumentsError: "Tool arguments must be a JSON object, got an array",
    };
    expect(await rejection(runner([getStatus]).invoke(pending(bad)))).toEqual(
      failure(
        ToolExecutionError,
        'Invalid arguments for tool "get_status": Tool arguments must be a JSON object, got an array (call "c2")',
      ),
    );
  });

  it('"raise" wraps the tool\'s own exception in a ToolExecutionError with the original as cause', async () => {
    const error = await rejection(
      runner([lookupOrder]).invoke(pending(call("call_1", "lookup_order", { orderId: "B-7" }))),
    );
    expect(error).toEqual(
      failure(
        ToolExecutionError,
        'Tool "lookup_order" failed on call "call_1": LookupError: no order B-7',
      ),
    );
    expect((error as Error).cause).toBeInstanceOf(LookupError);
    expect(error).toMatchObject({ tool: "lookup_order", toolCallId: "call_1" });
  });

  it('"raise" with several failures raises ToolGroupExecutionError with each, in call order', async () => {
    const error = (await rejection(
      runner([lookupOrder, getStatus]).invoke(
        pending(
          call("c1", "lookup_order", { orderId: "B-7" }),
          call("c2", "get_status", { orderId: "A-1" }),
          call("c3", "nope"),
        ),
      ),
    )) as ToolGroupExecutionError;
    expect(error).toEqual(
      failure(
        ToolGroupExecutionError,
        '2 tool calls failed: Tool "lookup_order" failed on call "c1": LookupError: no order B-7 | Tool call "c3" asked for unknown tool "nope"; known tools: lookup_order, get_status',
      ),
    );
    expect(error.errors.map((e) => (e as ToolExecutionError).toolCallId)).toEqual(["c1", "c3"]);
  });

  it('"return" sends "Tool error: <type>: <message>" to the model', async () => {
    const { state } = await runner([lookupOrder], "return").invoke(
      pending(
        call("call_1", "lookup_order", { orderId: "B-7" }),
        call("call_2", "missing"),
        call("call_3", "lookup_order", {}),
      ),
    );
    expect(toolMessages(state.messages).map((m) => [m.toolCallId, m.name, m.content])).toEqual([
      ["call_1", "lookup_order", "Tool error: LookupError: no order B-7"],
      [
        "call_2",
        "missing",
        'Tool error: ToolExecutionError: Tool call "call_2" asked for unknown tool "missing"; known tools: lookup_order',
      ],
      [
        "call_3",
        "lookup_order",
        'Tool error: ToolExecutionError: Invalid arguments for tool "lookup_order": orderId: Invalid input: expected string, received undefined (call "call_3")',
      ],
    ]);
    expect(state.toolCalls).toEqual([]);
  });

  it('"return" names a class without its own name by its constructor, and a thrown non-error as Error', async () => {
    class QuotaExceeded extends Error {}
    const quota = tool(
      () => {
        throw new QuotaExceeded("too many");
      },
      { name: "quota", description: "Q." },
    );
    const str = tool(
      () => {
        throw "plain text";
      },
      { name: "str", description: "S." },
    );
    const { state } = await runner([quota, str], "return").invoke(
      pending(call("c1", "quota"), call("c2", "str")),
    );
    expect(toolMessages(state.messages).map((m) => m.content)).toEqual([
      "Tool error: QuotaExceeded: too many",
      "Tool error: Error: plain text",
    ]);
  });

  it("a function policy turns the error into the text the model gets", async () => {
    const seen: unknown[] = [];
    const policy = (error: Error) => {
      seen.push(error);
      return `Sorry: ${error.message}`;
    };
    const { state } = await runner([lookupOrder], policy).invoke(
      pending(call("c1", "lookup_order", { orderId: "B-7" }), call("c2", "nope")),
    );
    expect(toolMessages(state.messages).map((m) => m.content)).toEqual([
      "Sorry: no order B-7",
      'Sorry: Tool call "c2" asked for unknown tool "nope"; known tools: lookup_order',
    ]);
    // The policy sees the tool's own exception, and the ToolExecutionError for an unknown tool.
    expect(
      seen.map((e) => (e as Error).constructor).sort((a, b) => a.name.localeCompare(b.name)),
    ).toEqual([LookupError, ToolExecutionError]);
  });

  it("a function policy that returns no string raises TypeError", async () => {
    const policy = (() => 42) as unknown as (e: Error) => string;
    expect(
      await rejection(
        runner([lookupOrder], policy).invoke(pending(call("c1", "lookup_order", { orderId: "B" }))),
      ),
    ).toEqual(
      failure(
        TypeError,
        'toolRunner "act": the toolErrors function must return a string, got number',
      ),
    );
  });

  it("ContextNotProvidedError and GraphConfigError from a tool always propagate", async () => {
    const needsContext = tool((_args, ctx) => String(ctx.context), {
      name: "needs_context",
      description: "Reads the context.",
    });
    const misconfigured = tool(
      () => {
        throw new GraphConfigError("bad setup");
      },
      { name: "misconfigured", description: "M." },
    );
    const noContext = await rejection(
      runner([needsContext], "return").invoke(pending(call("c1", "needs_context"))),
    );
    expect(noContext).toBeInstanceOf(ContextNotProvidedError);
    expect((noContext as Error).message).toMatch(
      /^Tool "needs_context" called by node "act" of graph "g" read ctx.context, but the run was started without one/,
    );
    expect(
      await rejection(
        runner([misconfigured], () => "handled").invoke(pending(call("c1", "misconfigured"))),
      ),
    ).toEqual(failure(GraphConfigError, "bad setup"));
  });

  it("a call without a string id always raises", async () => {
    const noId = { name: "get_status", arguments: {} } as unknown as ToolCall;
    const graph = oneNode(null, toolRunner("act", { tools: [getStatus], toolErrors: "return" }));
    expect(await rejection(graph.invoke({ messages: [], toolCalls: [noId] }))).toEqual(
      failure(
        ToolExecutionError,
        'toolRunner "act": tool call 0 in "toolCalls" (tool "get_status") has no string id, so no result can answer it',
      ),
    );
  });
});

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
