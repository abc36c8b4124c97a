import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type AIMessage, type Chat, type ChatStreamChunk, ScriptedChat } from "../chat/index.js";
import { RunCancelledError, StructuredOutputError } from "../errors/index.js";
import type { StreamEvent } from "../graph/types.js";
import { AgentState } from "./agent-state.js";
import { ask, lookup, oneNode, single } from "./model-node.fixture.js";
import { modelNode } from "./model-node.js";
import type { StructuredOutputEvent } from "./structured-output.js";

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
    const graph = oneNode(AgentState, modelNode("think", { chat, outputSchema: Ticket }));
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
