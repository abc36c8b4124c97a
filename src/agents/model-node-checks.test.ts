import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type Chat, HumanMessage, type Message, ScriptedChat } from "../chat/index.js";
import { GraphConfigError, ValueError } from "../errors/index.js";
import { defineState, messagesField } from "../state/define-state.js";
import { tool } from "../tools/tool.js";
import { ask, failure, lookup, oneNode, rejection, thrown } from "./model-node.fixture.js";
import { modelNode } from "./model-node.js";

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
    const graph = oneNode(State, think);
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
    const graph = oneNode(State, think);
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
    const graph = oneNode(State, modelNode("think", { chat }));
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
    const plain = oneNode(State, modelNode("think", { chat: new ScriptedChat(["ok"]) }));
    expect((await plain.invoke(ask("x"))).state.finalText).toBe("ok");
    const typed = oneNode(
      State,
      modelNode("think", { chat: new ScriptedChat(["{}"]), outputSchema: z.object({}) }),
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
    const graph = oneNode(State, think, { name: "graph" });
    const { state } = await graph.invoke({ history: [HumanMessage({ content: "n?" })] });
    expect(state.answer).toBe('{"n":1}');
    expect(state.pending).toEqual([]);
    expect(state.parsed).toEqual({ n: 1 });
    expect(state.history.map((m) => m.type)).toEqual(["human", "ai"]);
  });

  it("skips the declaration checks with a plain-object state and writes the whole list", async () => {
    const think = modelNode("think", { chat: new ScriptedChat(["hello"]) });
    const graph = oneNode(null, think, { name: "graph" });
    const { state } = await graph.invoke({ messages: [HumanMessage({ content: "hi" })] });
    expect((state.messages as Message[]).map((m) => [m.type, m.content])).toEqual([
      ["human", "hi"],
      ["ai", "hello"],
    ]);
    expect(state.toolCalls).toEqual([]);
    expect(state.finalText).toBe("hello");
  });
});
