import { describe, expect, it } from "vitest";
import { caught, expectError } from "../../test/helpers.js";
import { AgentState } from "../agents/agent-state.js";
import { modelNode } from "../agents/model-node.js";
import { buildReactAgent, runAgent } from "../agents/react-agent.js";
import {
  AIMessage,
  HumanMessage,
  type Message,
  SystemMessage,
  ToolMessage,
} from "../chat/messages.js";
import { ScriptedChat } from "../chat/scripted-chat.js";
import { ChatRequest } from "../chat/types.js";
import { ModelCallLimitError, ValueError } from "../errors/index.js";
import type { NodeContext } from "../graph/context.js";
import { Graph } from "../graph/graph.js";
import { node, START } from "../graph/node.js";
import { END } from "../graph/routing.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import { tool } from "../tools/tool.js";
import { estimateTokens, HistoryTrimMiddleware } from "./history-trim.js";
import { ModelCallLimitMiddleware } from "./model-call-limit.js";
import { runBeforeModel } from "./run-hooks.js";
import { TODO_INSTRUCTIONS, TodoMiddleware, todosFromMessages } from "./todo.js";
import type { ModelMiddlewareContext } from "./types.js";

const mctx = (state: unknown = {}): ModelMiddlewareContext => ({
  model: "m",
  node: {} as NodeContext,
  state,
});

const contents = (ms: readonly Message[]): string[] =>
  ms.map(
    (m) =>
      `${m.type}:${m.content ?? (m.type === "ai" ? m.toolCalls.map((c) => c.id).join(",") : "")}`,
  );

describe("TodoMiddleware", () => {
  it("folds write_todos and update_todo results in message order, skipping what does not parse", () => {
    const msgs: Message[] = [
      HumanMessage({ content: "go" }),
      ToolMessage({
        name: "write_todos",
        toolCallId: "a",
        content: JSON.stringify({
          result: {
            todos: [
              { id: 1, content: "read", status: "pending" },
              { id: 2, content: "answer", status: "pending" },
            ],
          },
        }),
      }),
      ToolMessage({
        name: "update_todo",
        toolCallId: "b",
        content: JSON.stringify({ result: { updated: { id: 1, status: "completed" }, todos: [] } }),
      }),
      ToolMessage({
        name: "update_todo",
        toolCallId: "c",
        content: JSON.stringify({
          result: { updated: { id: 2, status: "in_progress" }, todos: [] },
        }),
      }),
      ToolMessage({ name: "update_todo", toolCallId: "d", content: "Tool error: boom" }),
      ToolMessage({
        name: "update_todo",
        toolCallId: "e",
        content: JSON.stringify({
          result: { error: "No todo with id 9; the ids are 1, 2", todos: [] },
        }),
      }),
      ToolMessage({ name: "other", toolCallId: "f", content: '{"result":{"todos":[]}}' }),
    ];
    expect(todosFromMessages(msgs)).toEqual([
      { id: 1, content: "read", status: "completed" },
      { id: 2, content: "answer", status: "in_progress" },
    ]);
    expect(todosFromMessages([])).toEqual([]);
  });

  it("puts the instructions after the leading system messages while the list is empty; none with instructions: null", async () => {
    const request = ChatRequest({
      messages: [SystemMessage({ content: "sys" }), HumanMessage({ content: "hi" })],
    });
    const out = TodoMiddleware().beforeModel(request, mctx({ messages: [] }));
    expect(contents(out?.messages ?? [])).toEqual([
      "system:sys",
      `system:${TODO_INSTRUCTIONS}`,
      "human:hi",
    ]);
    expect(request.messages.length).toBe(2);
    expect(
      TodoMiddleware({ instructions: null }).beforeModel(request, mctx({ messages: [] })),
    ).toBe(undefined);
    expect(() => TodoMiddleware({ instructions: 3 as unknown as string })).toThrow(
      "TodoMiddleware: instructions must be a string or null",
    );
  });

  it("lets an agent write and update its list; the model sees it; parallel updates both count", async () => {
    const chat = new ScriptedChat([
      {
        toolCalls: [
          {
            id: "w",
            name: "write_todos",
            arguments: {
              todos: [{ content: "Look up the order" }, { content: "Answer", status: "pending" }],
            },
          },
        ],
      },
      {
        toolCalls: [
          { id: "u1", name: "update_todo", arguments: { id: 1, status: "completed" } },
          { id: "u2", name: "update_todo", arguments: { id: 2, status: "in_progress" } },
          { id: "u3", name: "update_todo", arguments: { id: 7, status: "completed" } },
        ],
      },
      "Done.",
    ]);
    const agent = buildReactAgent(chat, {
      tools: [],
      systemPrompt: "You help.",
      middleware: [TodoMiddleware({ instructions: "Plan." })],
    });
    const { state } = await agent.invoke({ messages: [HumanMessage({ content: "Where?" })] });
    expect(state.finalText).toBe("Done.");
    expect(chat.requests[0]?.tools.map((t) => t.name)).toEqual(["write_todos", "update_todo"]);
    expect(chat.requests[0]?.messages.map((m) => m.content)).toEqual([
      "You help.",
      "Plan.",
      "Where?",
    ]);
    expect(chat.requests[1]?.messages[1]?.content).toBe(
      "Plan.\nCurrent todo list:\n1. [pending] Look up the order\n2. [pending] Answer",
    );
    expect(chat.requests[2]?.messages[1]?.content).toBe(
      "Plan.\nCurrent todo list:\n1. [completed] Look up the order\n2. [in_progress] Answer",
    );
    expect(state.messages.map((m) => m.content).slice(-3, -1)).toEqual([
      '{"result":{"updated":{"id":2,"status":"in_progress"},"todos":[{"id":1,"content":"Look up the order","status":"pending"},{"id":2,"content":"Answer","status":"in_progress"}]}}',
      '{"result":{"error":"No todo with id 7; the ids are 1, 2","todos":[{"id":1,"content":"Look up the order","status":"pending"},{"id":2,"content":"Answer","status":"pending"}]}}',
    ]);
    // the note is only in the request: the state holds no system message
    expect(state.messages.filter((m) => m.type === "system")).toEqual([]);
    expect(todosFromMessages(state.messages)).toEqual([
      { id: 1, content: "Look up the order", status: "completed" },
      { id: 2, content: "Answer", status: "in_progress" },
    ]);
  });

  it("keeps the list with the thread: a later run on the thread shows it", async () => {
    const store = new MemoryStateStore();
    const first = new ScriptedChat([
      {
        toolCalls: [
          {
            id: "w",
            name: "write_todos",
            arguments: { todos: [{ content: "Ship", status: "in_progress" }] },
          },
        ],
      },
      "Started.",
    ]);
    const mk = (chat: ScriptedChat) =>
      buildReactAgent(chat, {
        tools: [],
        stateStore: store,
        middleware: [TodoMiddleware({ instructions: null })],
      });
    await runAgent(mk(first), "Plan it", { threadId: "t1" });
    const second = new ScriptedChat(["Still shipping."]);
    expect(await runAgent(mk(second), "Status?", { threadId: "t1" })).toBe("Still shipping.");
    expect(second.requests[0]?.messages[0]).toEqual(
      SystemMessage({ content: "Current todo list:\n1. [in_progress] Ship" }),
    );
  });

  it("update_todo on an empty list says to write it first", async () => {
    const [, update] = TodoMiddleware().tools();
    const { callTool } = await import("../tools/call-tool.js");
    const { ToolContext } = await import("../tools/tool-context.js");
    expect(
      (
        await callTool(
          update!,
          { id: 1, status: "completed" },
          ToolContext.empty({ state: { messages: [] } }),
        )
      ).value,
    ).toEqual({
      error: "No todo with id 1: the list is empty; write it with write_todos first",
      todos: [],
    });
  });
});

describe("HistoryTrimMiddleware", () => {
  const call = (id: string) =>
    AIMessage({ toolCalls: [{ id, name: "t", arguments: {}, argumentsError: null }] });
  const result = (id: string) => ToolMessage({ content: `r${id}`, toolCallId: id, name: "t" });
  const convo: Message[] = [
    SystemMessage({ content: "sys" }),
    HumanMessage({ content: "q1" }),
    AIMessage({ content: "a1" }),
    HumanMessage({ content: "q2" }),
    call("c1"),
    result("c1"),
    call("c2"),
    result("c2"),
    AIMessage({ content: "a2" }),
  ];
  const trim = (opts: Parameters<typeof HistoryTrimMiddleware>[0], messages = convo) =>
    HistoryTrimMiddleware(opts).beforeModel(ChatRequest({ messages }), mctx());

  it("leaves a request that fits alone", () => {
    expect(trim({ maxMessages: 9 })).toBe(undefined);
    expect(trim({ maxMessages: 100, maxTokens: 1000 })).toBe(undefined);
  });

  it("keeps the system message and the longest tail within maxMessages", () => {
    expect(contents(trim({ maxMessages: 7 })?.messages ?? [])).toEqual([
      "system:sys",
      "human:q2",
      "ai:c1",
      "tool:rc1",
      "ai:c2",
      "tool:rc2",
      "ai:a2",
    ]);
  });

  it("never starts the window with a tool result: the call goes with it", () => {
    // 5 messages would start at result("c1"); the window starts at call("c2") instead
    expect(contents(trim({ maxMessages: 5 })?.messages ?? [])).toEqual([
      "system:sys",
      "ai:c2",
      "tool:rc2",
      "ai:a2",
    ]);
    // 3 would start at result("c2"): only the last answer is kept
    expect(contents(trim({ maxMessages: 3 })?.messages ?? [])).toEqual(["system:sys", "ai:a2"]);
  });

  it("sends the last turn even over budget, and starts on a user message with startOn: human", () => {
    const endsWithResult = convo.slice(0, 6);
    expect(contents(trim({ maxMessages: 1 }, endsWithResult)?.messages ?? [])).toEqual([
      "system:sys",
      "ai:c1",
      "tool:rc1",
    ]);
    expect(contents(trim({ maxMessages: 5, startOn: "human" })?.messages ?? [])).toEqual([
      "system:sys",
      "human:q2",
      "ai:c1",
      "tool:rc1",
      "ai:c2",
      "tool:rc2",
      "ai:a2",
    ]);
  });

  it("counts tokens as characters / 4 by default, the system message included", () => {
    expect(estimateTokens(HumanMessage({ content: "Where is order A-1001?" }))).toBe(6);
    expect(
      estimateTokens(
        AIMessage({
          content: null,
          toolCalls: [{ id: "x", name: "lookup", arguments: { id: "A-1" }, argumentsError: null }],
        }),
      ),
    ).toBe(5); // "lookup" + '{"id":"A-1"}' = 18 characters
    const long: Message[] = [
      SystemMessage({ content: "s".repeat(40) }), // 10
      HumanMessage({ content: "h".repeat(40) }), // 10
      AIMessage({ content: "a".repeat(40) }), // 10
      HumanMessage({ content: "h".repeat(39) }), // 10
    ];
    const types = (r: ChatRequest | undefined) => (r?.messages ?? []).map((m) => m.type);
    expect(types(trim({ maxTokens: 30 }, long))).toEqual(["system", "ai", "human"]);
    expect(types(trim({ maxTokens: 29 }, long))).toEqual(["system", "human"]);
    expect(trim({ maxTokens: 40 }, long)).toBe(undefined);
    const counted: string[] = [];
    trim(
      {
        maxTokens: 2,
        countTokens: (m) => {
          counted.push(m.type);
          return 1;
        },
      },
      long,
    );
    expect(counted.sort()).toEqual(["ai", "human", "human", "system"]);
  });

  it("trims the request only, not the state, in an agent", async () => {
    const chat = new ScriptedChat(["one", "two"]);
    const store = new MemoryStateStore();
    const agent = buildReactAgent(chat, {
      tools: [],
      stateStore: store,
      middleware: [HistoryTrimMiddleware({ maxMessages: 1 })],
    });
    await runAgent(agent, "first", { threadId: "t" });
    await runAgent(agent, "second", { threadId: "t" });
    expect(contents(chat.requests[1]?.messages ?? [])).toEqual(["human:second"]);
    expect(contents((await agent.getState("t")).state.messages)).toEqual([
      "human:first",
      "ai:one",
      "human:second",
      "ai:two",
    ]);
  });

  it("checks its options", async () => {
    await expectError(
      () => HistoryTrimMiddleware({}),
      ValueError,
      "HistoryTrimMiddleware: give maxMessages, maxTokens or both",
    );
    await expectError(
      () => HistoryTrimMiddleware({ maxTokens: 0 }),
      ValueError,
      "HistoryTrimMiddleware: maxTokens must be a positive integer, got 0",
    );
    await expectError(
      () => HistoryTrimMiddleware({ maxMessages: 2, startOn: "ai" as "any" }),
      ValueError,
      'HistoryTrimMiddleware: startOn must be "any" or "human", got "ai"',
    );
    await expectError(
      () => trim({ maxTokens: 1, countTokens: () => -1 }),
      ValueError,
      "HistoryTrimMiddleware: countTokens returned -1 for a system message; it must return a non-negative number",
    );
  });
});

describe("ModelCallLimitMiddleware", () => {
  const loop = () =>
    new ScriptedChat(
      Array.from({ length: 5 }, (_, i) => ({
        toolCalls: [{ id: `c${i}`, name: "ping", arguments: {} }],
      })),
    );
  const ping = tool(() => "pong", { name: "ping", description: "Ping." });

  it("fails the run on the call past the budget", async () => {
    const limit = ModelCallLimitMiddleware({ maxModelCalls: 2 });
    const chat = loop();
    const agent = buildReactAgent(chat, { tools: [ping], middleware: [limit] });
    const e = (await caught(() =>
      agent.invoke({ messages: [HumanMessage({ content: "go" })] }),
    )) as ModelCallLimitError;
    expect(e).toBeInstanceOf(ModelCallLimitError);
    expect(e.message).toMatch(
      /^Model call limit reached: at most 2 model calls per run \(node "think" of graph "agent", run run-[0-9a-f]+-[0-9a-z]+\)$/,
    );
    expect(e.maxModelCalls).toBe(2);
    expect(e.node).toBe("think");
    expect(chat.requests.length).toBe(2);
    // A run without a thread cannot be resumed: its budget went when it failed.
    expect(limit.used(e.runId as string)).toBe(0);
    expect(limit.tracked()).toBe(0);
  });

  it("shares the budget between a run and its resumes, without counting a re-run task twice", async () => {
    const limit = ModelCallLimitMiddleware({ maxModelCalls: 2 });
    const store = new MemoryStateStore();
    const origins: string[] = [];
    let usedAtEnd = -1;
    const ask = node(
      async (_s: Record<string, unknown>, ctx) => {
        origins.push(ctx.originRunId);
        await runBeforeModel(ctx.middleware, ChatRequest({ messages: [] }), {
          model: "m",
          node: ctx,
          state: _s,
        });
        const answer = ctx.interrupt<string>("go on?", { key: "k" });
        return { answer };
      },
      { name: "ask" },
    );
    const again = node(
      async (s: Record<string, unknown>, ctx) => {
        await runBeforeModel(ctx.middleware, ChatRequest({ messages: [] }), {
          model: "m",
          node: ctx,
          state: s,
        });
        usedAtEnd = limit.used(ctx.originRunId);
        return {};
      },
      { name: "again" },
    );
    const g = new Graph(null, { stateStore: store, middleware: [limit] }).flow(
      START.to(ask),
      ask.to(again),
      again.to(END),
    );
    const first = await g.invoke({ x: 1 }, { threadId: "t" });
    expect(first.status).toBe("interrupted");
    expect(limit.used(first.runId)).toBe(1);
    const resumed = await g.invoke(null, { threadId: "t", resume: { k: "yes" } });
    expect(resumed.status).toBe("completed");
    expect(origins).toEqual([first.runId, first.runId]);
    // the resume's call counted on the paused run's budget, which ended with the run (onRunEnd)
    expect(usedAtEnd).toBe(2);
    expect(limit.used(first.runId)).toBe(0);
    expect(limit.tracked()).toBe(0);
    // a new run on the thread starts a fresh budget
    const next = await g.invoke({ x: 2 }, { threadId: "t" });
    expect(next.status).toBe("interrupted");
    expect(limit.used(next.runId)).toBe(1);
  });

  it("checks maxModelCalls", async () => {
    await expectError(
      () => ModelCallLimitMiddleware({ maxModelCalls: -1 }),
      ValueError,
      "ModelCallLimitMiddleware: maxModelCalls must be a non-negative integer, got -1",
    );
    await expectError(
      () => ModelCallLimitMiddleware({} as { maxModelCalls: number }),
      ValueError,
      "ModelCallLimitMiddleware: maxModelCalls must be a non-negative integer, got undefined",
    );
  });
});

describe("middleware order", () => {
  it("runs beforeModel hooks in list order: limit first, todo note, then trimming counts the note", async () => {
    const log: string[] = [];
    const chat = new ScriptedChat(["ok"]);
    const spy = {
      name: "spy",
      beforeModel(r: ChatRequest) {
        log.push(contents(r.messages).join(" | "));
      },
    };
    const State = AgentState;
    const think = modelNode<typeof State.State>("think", { chat, systemPrompt: "sys" });
    const g = new Graph(State, {
      middleware: [
        ModelCallLimitMiddleware({ maxModelCalls: 1 }),
        spy,
        TodoMiddleware({ instructions: "Plan." }),
        spy,
        HistoryTrimMiddleware({ maxMessages: 3 }),
        spy,
      ],
    }).flow(START.to(think), think.to(END));
    await g.invoke({
      messages: [
        HumanMessage({ content: "q1" }),
        AIMessage({ content: "a1" }),
        HumanMessage({ content: "q2" }),
      ],
    });
    expect(log).toEqual([
      "system:sys | human:q1 | ai:a1 | human:q2",
      "system:sys | system:Plan. | human:q1 | ai:a1 | human:q2",
      "system:sys | system:Plan. | human:q2",
    ]);
    expect(contents(chat.requests[0]?.messages ?? [])).toEqual([
      "system:sys",
      "system:Plan.",
      "human:q2",
    ]);
  });
});
