import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  AIMessage,
  type Chat,
  type ChatRequest,
  type ChatStreamChunk,
  HumanMessage,
  type Message,
  ScriptedChat,
  SystemMessage,
  ToolMessage,
} from "../chat/index.js";
import {
  ChatHistoryError,
  GraphConfigError,
  RunCancelledError,
  StructuredOutputError,
  ValueError,
} from "../errors/index.js";
import { Graph, type GraphState } from "../graph/graph.js";
import { type Node, START } from "../graph/node.js";
import { END } from "../graph/routing.js";
import type { StreamEvent } from "../graph/types.js";
import type { Middleware, ModelMiddlewareContext } from "../middleware/types.js";
import { defineState, messagesField, type StateDefinition } from "../state/define-state.js";
import { tool } from "../tools/tool.js";
import { AgentState } from "./agent-state.js";
import { modelNode, type StructuredOutputEvent } from "./model-node.js";

const lookup = tool(({ orderId }) => `order ${orderId}`, {
  name: "lookup_order",
  description: "Find an order by id.",
  input: z.object({ orderId: z.string() }),
});
const stock = tool(({ sku }) => sku.length, {
  name: "check_stock",
  description: "Return how many items are in stock.",
  input: z.object({ sku: z.string() }),
});

/** A graph of one node: START → node → END. */
function oneNode<D extends StateDefinition | null>(
  state: D,
  n: ReturnType<typeof modelNode>,
  name: string,
): Graph<D> {
  const any = n as unknown as Node<GraphState<D>>;
  return new Graph(state, { name }).flow(START.to(any), any.to(END));
}

/** A one-node graph around a model node, on AgentState unless told otherwise. */
function single(
  think: ReturnType<typeof modelNode>,
  options: { middleware?: Middleware[] } = {},
): Graph<typeof AgentState> {
  const n = think as unknown as Node<typeof AgentState.State>;
  return new Graph(AgentState, { middleware: options.middleware ?? [] }).flow(
    START.to(n),
    n.to(END),
  );
}

/** What a promise rejected with. */
async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e: unknown) => e,
  );
}

/** What a function threw. */
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

const ask = (content: string) => ({ messages: [HumanMessage({ content })] });

/** The messages as the model saw them, without ids. */
const seen = (request: ChatRequest) =>
  request.messages.map((m) => ({ type: m.type, content: m.content }));

describe("modelNode: checks when it is built", () => {
  const chat = new ScriptedChat([]);

  it("refuses two different tools with one name", () => {
    const other = tool(() => 1, { name: "lookup_order", description: "Another one." });
    expect(thrown(() => modelNode("think", { chat, tools: [lookup, other] }))).toEqual(
      failure(
        GraphConfigError,
        'modelNode "think": two different tools are named "lookup_order"; tool names must be unique',
      ),
    );
  });

  it("refuses the same tool listed twice", () => {
    const fn = () => modelNode("think", { chat, tools: [lookup, lookup] });
    expect(fn).toThrow(GraphConfigError);
    expect(fn).toThrow(
      'modelNode "think": tool "lookup_order" is listed twice; list each tool once',
    );
  });

  it("refuses a chat without a model string", () => {
    const noName = { complete: chat.complete, stream: chat.stream } as unknown as Chat;
    const fn = () => modelNode("think", { chat: noName });
    expect(fn).toThrow(TypeError);
    expect(fn).toThrow('modelNode "think": chat must be a chat model with a "model" name string');
    const numbered = { ...noName, model: 4 } as unknown as Chat;
    expect(() => modelNode("think", { chat: numbered })).toThrow(TypeError);
  });

  it("refuses an onInvalid that is neither raise nor emit", () => {
    const fn = () => modelNode("think", { chat, onInvalid: "ignore" as "raise" });
    expect(fn).toThrow(ValueError);
    expect(fn).toThrow('modelNode "think": onInvalid must be "raise" or "emit", got "ignore"');
  });

  it("refuses a reasoning option that is neither { effort } nor { budgetTokens }", () => {
    const msg = (what: string, got: string) =>
      `modelNode "think": reasoning must be { effort: "minimal" | "low" | "medium" | "high" } or { budgetTokens: <positive integer> }; ${what}, got ${got}`;
    const cases: Array<[unknown, string]> = [
      ["high", msg("it is not an object", '"high"')],
      [[], msg("it is not an object", "[]")],
      [{}, msg("it needs exactly one key", "{}")],
      [
        { effort: "low", budgetTokens: 2048 },
        msg("it needs exactly one key", '{"effort":"low","budgetTokens":2048}'),
      ],
      [{ effort: "max" }, msg("the effort is not one of them", '{"effort":"max"}')],
      [{ budgetTokens: 0 }, msg("budgetTokens is not a positive integer", '{"budgetTokens":0}')],
      [
        { budgetTokens: 1.5 },
        msg("budgetTokens is not a positive integer", '{"budgetTokens":1.5}'),
      ],
      [
        { budget_tokens: 2048 },
        msg('"budget_tokens" is neither effort nor budgetTokens', '{"budget_tokens":2048}'),
      ],
    ];
    for (const [reasoning, message] of cases) {
      expect(
        thrown(() => modelNode("think", { chat, reasoning: reasoning as { effort: "low" } })),
      ).toEqual(failure(ValueError, message));
    }
  });

  it("refuses an entry of tools that is not a tool", () => {
    const fn = () => modelNode("think", { chat, tools: [lookup, {} as typeof lookup] });
    expect(fn).toThrow(
      new TypeError('modelNode "think": tools[1] is not a tool; make tools with tool()'),
    );
  });
});

describe("modelNode: checks when it runs, before the model is called", () => {
  it("refuses a messages field that does not use addMessages", async () => {
    const State = defineState({
      messages: z.array(z.custom<Message>()).default([]),
      toolCalls: z.array(z.unknown()).default([]),
      finalText: z.string().nullable().default(null),
    });
    const chat = new ScriptedChat(["hi"]);
    const think = modelNode("think", { chat });
    const graph = oneNode(State, think, "g");
    const run = graph.invoke({ messages: [HumanMessage({ content: "x" })] });
    expect(await rejection(run)).toEqual(
      failure(
        GraphConfigError,
        'modelNode "think" of graph "g": its messages field "messages" does not use addMessages; declare it with messagesField()',
      ),
    );
    expect(chat.requests).toHaveLength(0);
  });

  it("refuses a messages field that is not declared", async () => {
    const State = defineState({ history: messagesField() });
    const think = modelNode("think", { chat: new ScriptedChat(["hi"]) });
    const graph = oneNode(State, think, "g");
    expect(await rejection(graph.invoke({}))).toEqual(
      failure(
        GraphConfigError,
        'modelNode "think" of graph "g": its messages field "messages" is not declared in the graph\'s state (declared fields: history); declare it with messagesField() or set messagesField',
      ),
    );
  });

  it("refuses a written field that is not declared", async () => {
    const State = defineState({ messages: messagesField(), toolCalls: z.array(z.unknown()) });
    const chat = new ScriptedChat(["hi"]);
    const graph = oneNode(State, modelNode("think", { chat }), "g");
    expect(await rejection(graph.invoke(ask("x")))).toEqual(
      failure(
        GraphConfigError,
        'modelNode "think" of graph "g" writes state field "finalText" (finalTextField), which the graph\'s state does not declare (declared fields: messages, toolCalls); declare it or set finalTextField',
      ),
    );
    expect(chat.requests).toHaveLength(0);
  });

  it("refuses an undeclared finalOutput field only when it has an output schema", async () => {
    const State = defineState({
      messages: messagesField(),
      toolCalls: z.array(z.unknown()),
      finalText: z.string().nullable(),
    });
    const plain = oneNode(State, modelNode("think", { chat: new ScriptedChat(["ok"]) }), "g");
    expect((await plain.invoke(ask("x"))).state.finalText).toBe("ok");
    const typed = oneNode(
      State,
      modelNode("think", { chat: new ScriptedChat(["{}"]), outputSchema: z.object({}) }),
      "g",
    );
    await expect(typed.invoke(ask("x"))).rejects.toThrow(
      'writes state field "finalOutput" (finalOutputField), which the graph\'s state does not declare',
    );
  });

  it("writes renamed fields", async () => {
    const State = defineState({
      history: messagesField(),
      pending: z.array(z.unknown()).default([]),
      answer: z.string().nullable().default(null),
      parsed: z.unknown(),
    });
    const think = modelNode("think", {
      chat: new ScriptedChat(['{"n":1}']),
      outputSchema: z.object({ n: z.number() }),
      messagesField: "history",
      toolCallsField: "pending",
      finalTextField: "answer",
      finalOutputField: "parsed",
    });
    const graph = oneNode(State, think, "graph");
    const { state } = await graph.invoke({ history: [HumanMessage({ content: "n?" })] });
    expect(state.answer).toBe('{"n":1}');
    expect(state.pending).toEqual([]);
    expect(state.parsed).toEqual({ n: 1 });
    expect(state.history.map((m) => m.type)).toEqual(["human", "ai"]);
  });

  it("skips the declaration checks with a plain-object state and writes the whole list", async () => {
    const think = modelNode("think", { chat: new ScriptedChat(["hello"]) });
    const graph = oneNode(null, think, "graph");
    const { state } = await graph.invoke({ messages: [HumanMessage({ content: "hi" })] });
    expect((state.messages as Message[]).map((m) => [m.type, m.content])).toEqual([
      ["human", "hi"],
      ["ai", "hello"],
    ]);
    expect(state.toolCalls).toEqual([]);
    expect(state.finalText).toBe("hello");
  });
});

describe("modelNode: consistent history", () => {
  const call = (id: string) => ({ id, name: "lookup_order", arguments: {}, argumentsError: null });

  it("raises ChatHistoryError for a tool call without a result right after it", async () => {
    const chat = new ScriptedChat(["never"]);
    const graph = oneNode(AgentState, modelNode("think", { chat }), "g");
    const messages = [
      HumanMessage({ content: "a" }),
      AIMessage({ toolCalls: [call("call_1"), call("call_2")] }),
      ToolMessage({ content: "1", toolCallId: "call_1" }),
      HumanMessage({ content: "b" }),
    ];
    const error = await graph.invoke({ messages }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChatHistoryError);
    expect((error as ChatHistoryError).message).toBe(
      'Node "think" of graph "g" cannot call the model: tool call "call_2" of the AIMessage at index 1 has no result right after it (the message at index 3 is a human message). Every tool call must be answered by a tool message right after it. Continue a stopped tool turn with invoke(null, { threadId }), fork the thread, or set repairHistory: true',
    );
    expect((error as ChatHistoryError).index).toBe(1);
    expect((error as ChatHistoryError).node).toBe("think");
    expect(chat.requests).toHaveLength(0);
  });

  it("raises ChatHistoryError when the history ends with unanswered calls", async () => {
    const graph = oneNode(AgentState, modelNode("think", { chat: new ScriptedChat(["x"]) }), "g");
    const messages = [HumanMessage({ content: "a" }), AIMessage({ toolCalls: [call("c9")] })];
    await expect(graph.invoke({ messages })).rejects.toThrow(
      'tool call "c9" of the AIMessage at index 1 has no result right after it (the history ends there)',
    );
  });

  it("raises ChatHistoryError for a tool result that answers no call", async () => {
    const graph = oneNode(AgentState, modelNode("think", { chat: new ScriptedChat(["x"]) }), "g");
    const messages = [
      HumanMessage({ content: "a" }),
      AIMessage({ toolCalls: [call("call_1")] }),
      ToolMessage({ content: "1", toolCallId: "call_1" }),
      ToolMessage({ content: "2", toolCallId: "call_7" }),
    ];
    const error = (await graph.invoke({ messages }).catch((e: unknown) => e)) as ChatHistoryError;
    expect(error).toBeInstanceOf(ChatHistoryError);
    expect(error.message).toContain(
      'cannot call the model: the tool result at index 3 (call "call_7") answers no call of the AIMessage before it.',
    );
    expect(error.index).toBe(3);
  });

  it("with repairHistory sends a repaired copy and leaves the state unchanged", async () => {
    const chat = new ScriptedChat(["fine"]);
    const graph = oneNode(AgentState, modelNode("think", { chat, repairHistory: true }), "graph");
    const messages = [
      HumanMessage({ content: "a", id: "m0" }),
      ToolMessage({ content: "orphan", toolCallId: "zz", id: "m1" }),
      AIMessage({ toolCalls: [call("call_1"), call("call_2")], id: "m2" }),
      ToolMessage({ content: "one", toolCallId: "call_1", id: "m3" }),
      HumanMessage({ content: "b", id: "m4" }),
    ];
    const { state } = await graph.invoke({ messages });
    expect(seen(chat.requests[0]!)).toEqual([
      { type: "human", content: "a" },
      { type: "ai", content: null },
      { type: "tool", content: "one" },
      { type: "tool", content: "Tool call was not executed." },
      { type: "human", content: "b" },
    ]);
    const filled = chat.requests[0]!.messages[3] as ToolMessage;
    expect([filled.toolCallId, filled.name]).toEqual(["call_2", "lookup_order"]);
    expect(state.messages.slice(0, 5)).toEqual(messages);
    expect(state.messages[5]).toMatchObject({ type: "ai", content: "fine" });
  });
});

describe("modelNode: the request", () => {
  it("sends the system prompt first, the tools' definitions, the tool choice and the output schema", async () => {
    const chat = new ScriptedChat(['{"title":"t","priority":2}']);
    const Ticket = z.object({ title: z.string(), priority: z.number() }).meta({ title: "Ticket" });
    const think = modelNode("think", {
      chat,
      systemPrompt: "Be brief.",
      tools: [lookup, stock],
      toolChoice: "required",
      outputSchema: Ticket,
    });
    await single(think).invoke(ask("help"));
    const request = chat.requests[0]!;
    expect(seen(request)).toEqual([
      { type: "system", content: "Be brief." },
      { type: "human", content: "help" },
    ]);
    expect(request.tools).toEqual([lookup.definition(), stock.definition()]);
    expect(request.toolChoice).toBe("required");
    expect(request.outputSchema).toEqual({
      type: "object",
      properties: { title: { type: "string" }, priority: { type: "number" } },
      required: ["title", "priority"],
      additionalProperties: false,
      title: "Ticket",
    });
  });

  it("sends a tool name as tool choice, and null and no tools by default", async () => {
    const named = new ScriptedChat(["x"]);
    await single(
      modelNode("think", { chat: named, tools: [lookup], toolChoice: "lookup_order" }),
    ).invoke(ask("q"));
    expect(named.requests[0]!.toolChoice).toBe("lookup_order");
    const plain = new ScriptedChat(["x"]);
    await single(modelNode("think", { chat: plain })).invoke(ask("q"));
    expect(plain.requests[0]).toMatchObject({ tools: [], toolChoice: null, outputSchema: null });
    expect(seen(plain.requests[0]!)).toEqual([{ type: "human", content: "q" }]);
  });

  it("sends its reasoning option in the request, and none by default", async () => {
    const chat = new ScriptedChat(["x"]);
    await single(modelNode("think", { chat, reasoning: { budgetTokens: 2048 } })).invoke(ask("q"));
    expect(chat.requests[0]!.reasoning).toEqual({ budgetTokens: 2048 });
    const effort = new ScriptedChat(["x"]);
    await single(modelNode("think", { chat: effort, reasoning: { effort: "low" } })).invoke(
      ask("q"),
    );
    expect(effort.requests[0]!.reasoning).toEqual({ effort: "low" });
    const plain = new ScriptedChat(["x"]);
    await single(modelNode("think", { chat: plain, reasoning: null })).invoke(ask("q"));
    expect("reasoning" in plain.requests[0]!).toBe(false);
  });

  it("passes the run's signal to the model call", async () => {
    const signals: unknown[] = [];
    const chat: Chat = {
      model: "m",
      async complete(_request, options) {
        signals.push(options?.signal);
        return { content: "ok" };
      },
      async *stream() {},
    };
    await single(modelNode("think", { chat })).invoke(ask("q"));
    expect(signals).toHaveLength(1);
    expect(signals[0]).toBeInstanceOf(AbortSignal);
  });
});

describe("modelNode: what it writes", () => {
  it("appends the AIMessage and writes the calls, with finalText null on a tool turn", async () => {
    const chat = new ScriptedChat([
      {
        toolCalls: [{ id: "call_1", name: "lookup_order", arguments: { orderId: "B-7" } }],
        usage: { totalTokens: 3 },
        raw: new Map([["secret", 1]]),
      },
    ]);
    const { state } = await single(modelNode("think", { chat, tools: [lookup] })).invoke({
      ...ask("where?"),
      finalText: "old answer",
    });
    const calls = [
      { id: "call_1", name: "lookup_order", arguments: { orderId: "B-7" }, argumentsError: null },
    ];
    expect(state.toolCalls).toEqual(calls);
    expect(state.finalText).toBeNull();
    const ai = state.messages[1] as AIMessage;
    expect(ai).toEqual({
      type: "ai",
      id: ai.id,
      content: null,
      refusal: null,
      toolCalls: calls,
      reasoning: [],
      finishReason: "tool_calls",
      usage: { totalTokens: 3 },
      // A response with usage records the model it is billed for (the usage totals price by it).
      responseMetadata: { model: "scripted" },
    });
    expect(typeof ai.id).toBe("string");
    expect("raw" in ai).toBe(false);
  });

  it("writes finalText null on a refusal", async () => {
    const chat = new ScriptedChat([{ content: "partial", refusal: "I cannot help with that." }]);
    const { state } = await single(modelNode("think", { chat })).invoke(ask("bad"));
    expect(state.finalText).toBeNull();
    expect(state.messages[1]).toMatchObject({ refusal: "I cannot help with that." });
  });

  it("streams the model call as tokens events and assembles the answer", async () => {
    const chat = new ScriptedChat(["Order A-1001 has shipped."]);
    const graph = single(modelNode("think", { chat, stream: true }));
    const events: StreamEvent[] = [];
    for await (const e of graph.stream(ask("where?"), { modes: ["tokens", "updates"] }))
      events.push(e);
    const tokens = events.filter((e) => e.mode === "tokens");
    expect(tokens.map((e) => (e.data as ChatStreamChunk).contentDelta ?? null)).toEqual([
      "Order ",
      "A-1001 ",
      "has ",
      "shipped.",
      null,
    ]);
    expect(tokens.every((e) => e.node === "think" && e.taskId === "0:0" && e.step === 0)).toBe(
      true,
    );
    const update = events.find((e) => e.mode === "updates")!.data as Record<string, unknown>;
    expect(update.finalText).toBe("Order A-1001 has shipped.");
    expect(chat.requests).toHaveLength(1);
  });

  it("streams tool calls and assembles them", async () => {
    const chat = new ScriptedChat([
      { toolCalls: [{ id: "c1", name: "lookup_order", arguments: { orderId: "X" } }] },
    ]);
    const { state } = await single(
      modelNode("think", { chat, stream: true, tools: [lookup] }),
    ).invoke(ask("x"));
    expect(state.toolCalls).toEqual([
      { id: "c1", name: "lookup_order", arguments: { orderId: "X" }, argumentsError: null },
    ]);
  });

  it("stops promptly when the run is cancelled during a model stream", async () => {
    let started!: () => void;
    const streaming = new Promise<void>((r) => {
      started = r;
    });
    const chat: Chat = {
      model: "slow",
      async complete() {
        return {};
      },
      async *stream(_request, options) {
        yield { contentDelta: "Thinking" };
        started();
        await new Promise((_, reject) =>
          options?.signal?.addEventListener("abort", () => reject(options.signal?.reason)),
        );
      },
    };
    const controller = new AbortController();
    const run = single(modelNode("think", { chat, stream: true })).invoke(ask("x"), {
      signal: controller.signal,
    });
    await streaming;
    const t0 = Date.now();
    controller.abort();
    await expect(run).rejects.toBeInstanceOf(RunCancelledError);
    expect(Date.now() - t0).toBeLessThan(500);
  });
});

describe("modelNode: structured output", () => {
  const Ticket = z
    .object({ title: z.string(), priority: z.number().int() })
    .meta({ title: "Ticket" });

  it("parses the answer into finalOutput", async () => {
    const chat = new ScriptedChat(['{"title": "Checkout is down", "priority": 1}']);
    const { state } = await single(modelNode("think", { chat, outputSchema: Ticket })).invoke(
      ask("x"),
    );
    expect(state.finalOutput).toEqual({ title: "Checkout is down", priority: 1 });
    expect(state.finalText).toBe('{"title": "Checkout is down", "priority": 1}');
  });

  it("stores null on tool-call and refusal turns", async () => {
    const chat = new ScriptedChat([
      { toolCalls: [{ id: "c", name: "lookup_order" }] },
      { refusal: "no" },
    ]);
    const graph = single(modelNode("think", { chat, outputSchema: Ticket, tools: [lookup] }));
    expect((await graph.invoke({ ...ask("x"), finalOutput: 5 })).state.finalOutput).toBeNull();
    expect((await graph.invoke({ ...ask("y"), finalOutput: 5 })).state.finalOutput).toBeNull();
  });

  it("raises StructuredOutputError for an answer that does not validate", async () => {
    const chat = new ScriptedChat(['{"title": "x", "priority": "high"}']);
    const graph = oneNode(AgentState, modelNode("think", { chat, outputSchema: Ticket }), "g");
    const error = (await graph.invoke(ask("x")).catch((e: unknown) => e)) as StructuredOutputError;
    expect(error).toBeInstanceOf(StructuredOutputError);
    expect(error.message).toBe(
      'Node "think" of graph "g": the final answer does not parse into output schema "Ticket": the answer does not match the schema: priority: Invalid input: expected number, received string',
    );
    expect(error.schemaName).toBe("Ticket");
    expect(error.rawContent).toBe('{"title": "x", "priority": "high"}');
  });

  it("raises StructuredOutputError for an answer that is not JSON, naming an untitled schema output", async () => {
    const chat = new ScriptedChat(["Sure! Here it is."]);
    const graph = single(modelNode("think", { chat, outputSchema: z.object({ a: z.string() }) }));
    const error = (await graph.invoke(ask("x")).catch((e: unknown) => e)) as StructuredOutputError;
    expect(error).toBeInstanceOf(StructuredOutputError);
    expect(error.schemaName).toBe("output");
    expect(error.message).toMatch(
      /does not parse into output schema "output": the answer is not JSON: Unexpected token/,
    );
  });

  it('with onInvalid: "emit" sends a custom StructuredOutputEvent and stores null', async () => {
    const chat = new ScriptedChat(['{"title": 3}']);
    const graph = single(modelNode("think", { chat, outputSchema: Ticket, onInvalid: "emit" }));
    const events: StreamEvent[] = [];
    for await (const e of graph.stream(ask("x"), { modes: ["custom", "values"] })) events.push(e);
    const custom = events.filter((e) => e.mode === "custom");
    const expected: StructuredOutputEvent = {
      kind: "structured_output_error",
      schemaName: "Ticket",
      message:
        "the answer does not match the schema: title: Invalid input: expected string, received number; priority: Invalid input: expected number, received undefined",
      rawContent: '{"title": 3}',
    };
    expect(custom.map((e) => e.data)).toEqual([expected]);
    const last = events.at(-1)!.data as typeof AgentState.State;
    expect(last.finalOutput).toBeNull();
    expect(last.finalText).toBe('{"title": 3}');
  });
});

describe("modelNode: model middleware", () => {
  it("runs beforeModel and afterModel, which may replace the request and the response", async () => {
    const chat = new ScriptedChat(["from the model"]);
    const contexts: ModelMiddlewareContext[] = [];
    const mw: Middleware = {
      beforeModel(request, ctx) {
        contexts.push(ctx);
        return { ...request, messages: [...request.messages, SystemMessage({ content: "added" })] };
      },
      afterModel(response) {
        return { ...response, content: `${response.content} (edited)` };
      },
    };
    const { state } = await single(modelNode("think", { chat }), { middleware: [mw] }).invoke(
      ask("q"),
    );
    expect(seen(chat.requests[0]!)).toEqual([
      { type: "human", content: "q" },
      { type: "system", content: "added" },
    ]);
    expect(state.finalText).toBe("from the model (edited)");
    expect(state.messages[1]).toMatchObject({ content: "from the model (edited)" });
    expect(contexts[0]!.model).toBe("scripted");
    expect(contexts[0]!.node.node).toBe("think");
    expect((contexts[0]!.state as typeof AgentState.State).messages[0]!.content).toBe("q");
  });

  it("an afterModel hook can turn an answer into a tool call", async () => {
    const mw: Middleware = {
      afterModel: (response) => ({
        ...response,
        content: null,
        toolCalls: [{ id: "x1", name: "lookup_order", arguments: {}, argumentsError: null }],
      }),
    };
    const { state } = await single(modelNode("think", { chat: new ScriptedChat(["text"]) }), {
      middleware: [mw],
    }).invoke(ask("q"));
    expect(state.toolCalls.map((c) => c.id)).toEqual(["x1"]);
    expect(state.finalText).toBeNull();
  });

  it("raises TypeError when a hook replaces the request or the response with another type", async () => {
    const badRequest: Middleware = {
      name: "Bad",
      beforeModel: () => "not a request" as unknown as ChatRequest,
    };
    await expect(
      single(modelNode("think", { chat: new ScriptedChat(["x"]) }), {
        middleware: [badRequest],
      }).invoke(ask("q")),
    ).rejects.toThrow(TypeError);
    const badResponse: Middleware = {
      name: "Bad",
      afterModel: () => [] as unknown as ReturnType<NonNullable<Middleware["afterModel"]>>,
    };
    const chat = new ScriptedChat(["x"]);
    const error = await single(modelNode("think", { chat }), { middleware: [badResponse] })
      .invoke(ask("q"))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(/^middleware Bad afterModel returned/);
  });
});
