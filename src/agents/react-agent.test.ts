import { describe, expect, it } from "vitest";
import { z } from "zod";
import { caught } from "../../test/helpers.js";
import { type ChatRequest, HumanMessage, ScriptedChat, type ToolMessage } from "../chat/index.js";
import {
  GraphConfigError,
  RunInterruptedError,
  StepLimitError,
  StructuredOutputError,
  ToolExecutionError,
  ValueError,
} from "../errors/index.js";
import type { StreamEvent } from "../graph/types.js";
import { resolveLazy } from "../lazy.js";
import type { Middleware } from "../middleware/types.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import { tool } from "../tools/tool.js";
import { AgentState } from "./agent-state.js";
import { failure, rejection, thrown } from "./node-tests.fixture.js";
import { buildReactAgent, runAgent } from "./react-agent.js";

const getOrderStatus = tool(({ orderId }) => (orderId === "A-1001" ? "shipped" : "unknown"), {
  name: "get_order_status",
  description: "Look up the shipping status of an order.",
  input: z.object({ orderId: z.string() }),
  output: z.string(),
});

const statusCall = (id: string, orderId = "A-1001") => ({
  id,
  name: "get_order_status",
  arguments: { orderId },
});

const lastContent = (request: ChatRequest) => request.messages.at(-1)!.content;

describe("buildReactAgent", () => {
  it("runs on AgentState's definition itself, not on its lazy stand-in (no Proxy trap per read)", () => {
    const agent = buildReactAgent(new ScriptedChat(["Hi."]), { tools: [getOrderStatus] });
    expect(agent.state).toBe(resolveLazy(AgentState));
    expect(agent.state).not.toBe(AgentState);
    expect([...agent.state.fields.keys()]).toEqual([
      "messages",
      "toolCalls",
      "finalText",
      "finalOutput",
    ]);
  });

  it("alternates think and act until the model answers without tool calls", async () => {
    const chat = new ScriptedChat([
      { toolCalls: [statusCall("call_1")] },
      "Order A-1001 has shipped.",
    ]);
    const agent = buildReactAgent(chat, {
      tools: [getOrderStatus],
      systemPrompt: "You answer questions about orders.",
    });
    expect(agent.name).toBe("agent");
    expect(agent.nodeNames).toEqual(["think", "act"]);
    const updates: string[] = [];
    for await (const e of agent.stream({
      messages: [{ type: "human", id: null, content: "Where?" }],
    }))
      updates.push(e.node ?? "");
    expect(updates).toEqual(["think", "act", "think"]);
  });

  it("runs the seed example", async () => {
    const chat = new ScriptedChat([
      { toolCalls: [statusCall("call_1")] },
      "Order A-1001 has shipped.",
    ]);
    const agent = buildReactAgent(chat, {
      tools: [getOrderStatus],
      systemPrompt: "You answer questions about orders.",
    });
    expect(await runAgent(agent, "Where is order A-1001?")).toBe("Order A-1001 has shipped.");
    expect(chat.requests).toHaveLength(2);
    expect(lastContent(chat.requests[1]!)).toBe('{"result":"shipped"}');
    expect(chat.requests[0]!.messages.map((m) => [m.type, m.content])).toEqual([
      ["system", "You answer questions about orders."],
      ["human", "Where is order A-1001?"],
    ]);
    expect(chat.requests[1]!.messages[0]!.content).toBe("You answer questions about orders.");
  });

  it("refuses two tools with one name, also through a middleware", () => {
    const other = tool(() => "x", { name: "get_order_status", description: "Other." });
    const withTool: Middleware = { name: "Extra", tools: () => [other] };
    const sameTool: Middleware = { name: "Same", tools: () => [getOrderStatus] };
    const chat = new ScriptedChat([]);
    expect(thrown(() => buildReactAgent(chat, { tools: [getOrderStatus, other] }))).toEqual(
      failure(
        GraphConfigError,
        'buildReactAgent "agent": two different tools are named "get_order_status"; tool names must be unique',
      ),
    );
    expect(
      thrown(() => buildReactAgent(chat, { tools: [getOrderStatus], middleware: [withTool] })),
    ).toEqual(
      failure(
        GraphConfigError,
        'buildReactAgent "agent" (its tools and those of its middleware): two different tools are named "get_order_status"; tool names must be unique',
      ),
    );
    expect(
      thrown(() => buildReactAgent(chat, { tools: [getOrderStatus], middleware: [sameTool] })),
    ).toEqual(
      failure(
        GraphConfigError,
        'buildReactAgent "agent" (its tools and those of its middleware): tool "get_order_status" is listed twice; list each tool once',
      ),
    );
  });

  it("requires tools", () => {
    const fn = () =>
      buildReactAgent(new ScriptedChat([]), {} as unknown as Parameters<typeof buildReactAgent>[1]);
    expect(thrown(fn)).toEqual(
      failure(
        TypeError,
        "buildReactAgent(chat, options): options.tools is required (an array of tools, possibly empty)",
      ),
    );
  });

  it("adds the tools of its middleware to both nodes", async () => {
    const note = tool(({ text }) => `noted ${text}`, {
      name: "take_note",
      description: "Take a note.",
      input: z.object({ text: z.string() }),
    });
    const notes: Middleware = { tools: () => [note] };
    const chat = new ScriptedChat([
      { toolCalls: [{ id: "n1", name: "take_note", arguments: { text: "hi" } }] },
      "ok",
    ]);
    const agent = buildReactAgent(chat, { tools: [getOrderStatus], middleware: [notes] });
    expect(await runAgent(agent, "note it")).toBe("ok");
    expect(chat.requests[0]!.tools.map((t) => t.name)).toEqual(["get_order_status", "take_note"]);
    expect(lastContent(chat.requests[1]!)).toBe('{"result":"noted hi"}');
  });

  it("denies calls over maxToolCalls and tells the model in a tool message", async () => {
    const chat = new ScriptedChat([
      { toolCalls: [statusCall("c1"), statusCall("c2"), statusCall("c3")] },
      "Done.",
    ]);
    const agent = buildReactAgent(chat, { tools: [getOrderStatus], maxToolCalls: 2 });
    expect(await runAgent(agent, "three times")).toBe("Done.");
    const results = chat.requests[1]!.messages.filter((m) => m.type === "tool") as ToolMessage[];
    expect(results.map((m) => [m.toolCallId, m.content])).toEqual([
      ["c1", '{"result":"shipped"}'],
      ["c2", '{"result":"shipped"}'],
      ["c3", "Tool call limit reached: at most 2 tool calls per run"],
    ]);
  });

  it("places its ToolLimitMiddleware before the given middleware", async () => {
    const seen: string[] = [];
    const spy: Middleware = {
      beforeTool(_args, ctx) {
        seen.push(ctx.toolCallId ?? "");
      },
    };
    const chat = new ScriptedChat([{ toolCalls: [statusCall("c1"), statusCall("c2")] }, "x"]);
    const agent = buildReactAgent(chat, {
      tools: [getOrderStatus],
      maxToolCalls: 1,
      middleware: [spy],
    });
    await runAgent(agent, "go");
    expect(seen).toEqual(["c1"]);
  });

  it("stops after maxSteps supersteps with StepLimitError", async () => {
    const chat = new ScriptedChat(
      Array.from({ length: 10 }, (_, i) => ({ toolCalls: [statusCall(`c${i}`)] })),
    );
    const agent = buildReactAgent(chat, { tools: [getOrderStatus], maxSteps: 3 });
    const error = await rejection(runAgent(agent, "loop"));
    expect(error).toBeInstanceOf(StepLimitError);
    expect(error).toMatchObject({ maxSteps: 3, pending: ["act"] });
    expect(chat.requests).toHaveLength(2);
  });

  it("uses the default limits: 25 supersteps and 50 tool calls", async () => {
    const chat = new ScriptedChat(
      Array.from({ length: 30 }, (_, i) => ({ toolCalls: [statusCall(`c${i}`)] })),
    );
    const agent = buildReactAgent(chat, { tools: [getOrderStatus] });
    expect(agent.maxSteps).toBe(25);
    const error = await rejection(runAgent(agent, "loop"));
    expect(error).toMatchObject({ maxSteps: 25 });
    expect(chat.requests).toHaveLength(13);
    const many = new ScriptedChat([
      { toolCalls: Array.from({ length: 51 }, (_, i) => statusCall(`c${i}`)) },
      "done",
    ]);
    await runAgent(buildReactAgent(many, { tools: [getOrderStatus] }), "go");
    const results = many.requests[1]!.messages.filter((m) => m.type === "tool");
    expect(results[49]!.content).toBe('{"result":"shipped"}');
    expect(results[50]!.content).toBe("Tool call limit reached: at most 50 tool calls per run");
  });

  it("passes toolErrors to its tool node", async () => {
    const failing = tool(
      () => {
        throw new RangeError("out of range");
      },
      { name: "failing", description: "F." },
    );
    const script = () =>
      new ScriptedChat([{ toolCalls: [{ id: "c1", name: "failing" }] }, "recovered"]);
    expect(await rejection(runAgent(buildReactAgent(script(), { tools: [failing] }), "x"))).toEqual(
      failure(ToolExecutionError, 'Tool "failing" failed on call "c1": RangeError: out of range'),
    );
    const chat = script();
    const agent = buildReactAgent(chat, { tools: [failing], toolErrors: "return" });
    expect(await runAgent(agent, "x")).toBe("recovered");
    expect(lastContent(chat.requests[1]!)).toBe("Tool error: RangeError: out of range");
  });

  it("streams model calls as tokens events with stream: true", async () => {
    const agent = buildReactAgent(new ScriptedChat(["Hello there."]), { tools: [], stream: true });
    const events: StreamEvent[] = [];
    for await (const e of agent.stream(
      { messages: [{ type: "human", id: null, content: "hi" }] },
      { modes: ["tokens"] },
    ))
      events.push(e);
    expect(events.map((e) => [e.node, (e.data as { contentDelta?: string }).contentDelta])).toEqual(
      [
        ["think", "Hello "],
        ["think", "there."],
        ["think", undefined],
      ],
    );
  });

  it("parses the answer into finalOutput with outputSchema, and raises StructuredOutputError when it does not validate", async () => {
    const Ticket = z.object({ title: z.string(), priority: z.number().int() });
    const agent = buildReactAgent(new ScriptedChat(['{"title":"Down","priority":1}']), {
      tools: [],
      outputSchema: Ticket,
    });
    const result = await agent.invoke({ messages: [{ type: "human", id: null, content: "x" }] });
    const output: { title: string; priority: number } | null = result.state.finalOutput;
    expect(output).toEqual({ title: "Down", priority: 1 });
    const bad = buildReactAgent(new ScriptedChat(['{"title":"Down"}']), {
      tools: [],
      outputSchema: Ticket,
    });
    expect(await rejection(runAgent(bad, "x"))).toBeInstanceOf(StructuredOutputError);
  });

  it("sends its reasoning option on every model call, and none by default", async () => {
    const chat = new ScriptedChat([{ toolCalls: [statusCall("c1")] }, "It has shipped."]);
    const agent = buildReactAgent(chat, {
      tools: [getOrderStatus],
      reasoning: { budgetTokens: 2048 },
    });
    expect(await runAgent(agent, "Where is A-1001?")).toBe("It has shipped.");
    expect(chat.requests.map((r) => r.reasoning)).toEqual([
      { budgetTokens: 2048 },
      { budgetTokens: 2048 },
    ]);
    const effort = new ScriptedChat(["Fine."]);
    await runAgent(buildReactAgent(effort, { tools: [], reasoning: { effort: "high" } }), "x");
    expect(effort.requests[0]!.reasoning).toEqual({ effort: "high" });
    const plain = new ScriptedChat(["Fine."]);
    await runAgent(buildReactAgent(plain, { tools: [] }), "x");
    expect(Object.keys(plain.requests[0]!)).toEqual([
      "messages",
      "tools",
      "toolChoice",
      "outputSchema",
    ]);
  });

  it("refuses a reasoning option with an unknown effort", () => {
    expect(
      thrown(() =>
        buildReactAgent(new ScriptedChat([]), {
          tools: [],
          reasoning: { effort: "extreme" as "high" },
        }),
      ),
    ).toEqual(
      failure(
        ValueError,
        'buildReactAgent "agent": reasoning must be { effort: "minimal" | "low" | "medium" | "high" } or { budgetTokens: <positive integer> }; the effort is not one of them, got {"effort":"extreme"}',
      ),
    );
  });

  it("passes name, workspace and maxSteps to the graph", () => {
    const workspace = { files: {} };
    const agent = buildReactAgent(new ScriptedChat([]), {
      tools: [],
      name: "support",
      workspace,
      maxSteps: 7,
    });
    expect([agent.name, agent.workspace, agent.maxSteps, agent.stateStore]).toEqual([
      "support",
      workspace,
      7,
      null,
    ]);
  });
});

describe("runAgent", () => {
  it('returns "" after a refusal', async () => {
    const chat = new ScriptedChat([{ refusal: "I can't help with that." }]);
    expect(await runAgent(buildReactAgent(chat, { tools: [] }), "something bad")).toBe("");
  });

  it("passes its options to invoke, such as the context", async () => {
    const checkStock = tool(
      ({ sku }, ctx) => (ctx.context as { stock: Record<string, number> }).stock[sku] ?? 0,
      { name: "check_stock", description: "Stock.", input: z.object({ sku: z.string() }) },
    );
    const chat = new ScriptedChat([
      { toolCalls: [{ id: "c1", name: "check_stock", arguments: { sku: "MUG-1" } }] },
      "12 mugs.",
    ]);
    const agent = buildReactAgent(chat, { tools: [checkStock] });
    expect(await runAgent(agent, "mugs?", { context: { stock: { "MUG-1": 12 } } })).toBe(
      "12 mugs.",
    );
    expect(lastContent(chat.requests[1]!)).toBe('{"result":12}');
  });

  it("raises RunInterruptedError when the run pauses for human input", async () => {
    const approve = tool((_args, ctx) => ctx.interrupt({ question: "Refund?" }), {
      name: "approve",
      description: "Ask a person.",
    });
    const chat = new ScriptedChat([{ toolCalls: [{ id: "c1", name: "approve" }] }, "never"]);
    const error = (await rejection(
      runAgent(buildReactAgent(chat, { tools: [approve] }), "refund me"),
    )) as RunInterruptedError;
    expect(error).toBeInstanceOf(RunInterruptedError);
    expect(error.message).toBe(
      'Agent "agent" paused for human input (interrupt "1:0#c1"); answer with graph.invoke(null, { threadId: null, resume: { "1:0#c1": <answer> } })',
    );
    expect(error.interrupts).toEqual([
      { key: "1:0#c1", value: { question: "Refund?" }, node: "act", taskId: "1:0" },
    ]);
    expect(error.threadId).toBeNull();
  });

  it("names every pending key in RunInterruptedError's resume advice", async () => {
    const approve = tool((_args, ctx) => ctx.interrupt({ question: "Refund?" }), {
      name: "approve",
      description: "Ask a person.",
    });
    const chat = new ScriptedChat([
      {
        toolCalls: [
          { id: "c1", name: "approve" },
          { id: "c2", name: "approve" },
        ],
      },
      "never",
    ]);
    const agent = buildReactAgent(chat, { tools: [approve], stateStore: new MemoryStateStore() });
    const error = (await rejection(
      runAgent(agent, "refund me", { threadId: "t" }),
    )) as RunInterruptedError;
    expect(error.message).toBe(
      'Agent "agent" paused for human input (interrupt "1:0#c1", "1:0#c2"); answer with graph.invoke(null, { threadId: "t", resume: { "1:0#c1": <answer>, "1:0#c2": <answer> } })',
    );
  });

  it("refuses a message that is not a string", async () => {
    const agent = buildReactAgent(new ScriptedChat([]), { tools: [] });
    expect(await rejection(runAgent(agent, 5 as unknown as string))).toEqual(
      failure(TypeError, "runAgent(graph, message): message must be a string, got number"),
    );
  });
});

describe("malformed tool calls from the model", () => {
  it("refuses duplicate ids and calls without an id before anything is stored", async () => {
    const { ModelProviderError } = await import("../errors/index.js");
    const { MemoryStateStore } = await import("../stores/memory-state-store.js");
    const echo = (await import("../tools/tool.js")).tool(({ s }: { s: string }) => s, {
      name: "echo",
      description: "Echo.",
      input: (await import("zod")).z.object({ s: (await import("zod")).z.string() }),
    });
    const store = new MemoryStateStore();
    const chat = new ScriptedChat([
      {
        toolCalls: [
          { id: "c1", name: "echo", arguments: { s: "x" } },
          { id: "c1", name: "echo", arguments: { s: "y" } },
        ],
      },
      { toolCalls: [{ id: "" as string, name: "echo" }] },
      "done",
    ]);
    const agent = buildReactAgent(chat, { tools: [echo], stateStore: store });
    const e = await caught(() =>
      agent.invoke({ messages: [HumanMessage({ content: "hi" })] }, { threadId: "t" }),
    );
    expect(e).toBeInstanceOf(ModelProviderError);
    expect(e.message).toBe(
      'Model "scripted" (node "think") returned tool call 1 with the id "c1" of an earlier call of the same turn; tool call ids must be unique; nothing was stored',
    );
    expect((await agent.getState("t")).state.messages.map((m) => m.type)).toEqual(["human"]);
    const e2 = await caught(() => agent.invoke(null, { threadId: "t" }));
    expect(e2.message).toBe(
      'Model "scripted" (node "think") returned tool call 0 with an invalid id (""); nothing was stored',
    );
    expect((await agent.invoke(null, { threadId: "t" })).state.finalText).toBe("done");
  });
});
