/**
 * An agent step's messages and tool calls take the plain parse (src/chat/plain-parse.ts), and
 * the engine keeps such an update without copying it again (claimOwned). Here a model keeps
 * every response it returned and mutates it afterwards — later in the same run, after the
 * run, and during the next model call or tool call — and a tool mutates the arguments it got: the run's
 * state, the thread's state and a cold load (a new agent over a reopened store) all hold what
 * the model returned when it returned it, on every store.
 */
import { expect, it } from "vitest";
import { z } from "zod";
import { buildReactAgent } from "../../src/agents/index.js";
import type { Message } from "../../src/chat/messages.js";
import type { Chat, ChatResponseInit } from "../../src/chat/types.js";
import { Graph, node, START } from "../../src/graph/index.js";
import { END } from "../../src/graph/routing.js";
import { HumanMessage } from "../../src/index.js";
import { defineState, messagesField } from "../../src/state/index.js";
import type { StateStore } from "../../src/stores/types.js";
import { tool } from "../../src/tools/index.js";
import { describeStores } from "./stores.js";

type Loose = Record<string, unknown>;

/** Every object and array in `v`, mutated: strings and numbers changed, lists grown, keys added. */
function vandalize(v: unknown): void {
  if (v === null || typeof v !== "object") return;
  if (Array.isArray(v)) {
    for (const x of v) vandalize(x);
    v.push({ id: "evil", name: "evil", arguments: {} });
    return;
  }
  const o = v as Loose;
  for (const k of Object.keys(o)) {
    if (typeof o[k] === "string") o[k] = `${o[k]} (changed)`;
    else if (typeof o[k] === "number") o[k] = 999;
    else vandalize(o[k]);
  }
  o.added = "later";
}

function setup() {
  const returned: ChatResponseInit[] = [];
  let n = 0;
  const chat: Chat = {
    model: "keeps-its-responses",
    async complete(): Promise<ChatResponseInit> {
      n += 1;
      // Everything returned so far (its messages are in the state and the store by now).
      for (const r of returned) vandalize(r);
      const args = { q: "item", n: 2, on: true, none: null, "": "" };
      const response: ChatResponseInit =
        n === 1
          ? {
              content: "",
              toolCalls: [
                { id: "c1", name: "lookup", arguments: args },
                { id: "c2", name: "lookup", arguments: args },
              ],
              usage: { inputTokens: 3, outputTokens: 4 },
              responseMetadata: { provider: "x", n: 1 },
            }
          : { content: "done", usage: {}, responseMetadata: {} };
      returned.push(response);
      // And again on a later turn of the event loop (during the step's commit on a store that
      // does I/O). (A microtask queued here would run before the model node reads it.)
      setTimeout(() => vandalize(response), 0);
      return response;
    },
    stream() {
      throw new Error("not used");
    },
  };
  const lookup = tool(
    (a: Loose) => {
      const out = `found ${a.q}`;
      vandalize(a);
      for (const r of returned) vandalize(r);
      return out;
    },
    {
      name: "lookup",
      description: "Look up an item.",
      input: z.object({
        q: z.string(),
        n: z.number(),
        on: z.boolean(),
        none: z.null(),
        "": z.string(),
      }),
      output: z.string(),
    },
  );
  return { chat, lookup };
}

const FOUND = JSON.stringify({ result: "found item" });
const ARGS = { q: "item", n: 2, on: true, none: null, "": "" };

describeStores("a model and a tool that mutate what they returned or were given", (fx) => {
  it("change nothing the run holds, stores or loads", async () => {
    const store = await fx.open();
    const { chat, lookup } = setup();
    const agent = buildReactAgent(chat, { tools: [lookup], stateStore: store });
    const result = await agent.invoke(
      { messages: [HumanMessage({ content: "find it" })] },
      { threadId: "t" },
    );
    await new Promise((r) => setTimeout(r, 5));
    const ms = result.state.messages;
    expect(ms.map((m) => ({ ...m, id: null }))).toEqual([
      { type: "human", id: null, content: "find it" },
      {
        type: "ai",
        id: null,
        content: "",
        refusal: null,
        toolCalls: [
          { id: "c1", name: "lookup", arguments: ARGS, argumentsError: null },
          { id: "c2", name: "lookup", arguments: ARGS, argumentsError: null },
        ],
        reasoning: [],
        finishReason: null,
        usage: { inputTokens: 3, outputTokens: 4 },
        responseMetadata: { provider: "x", n: 1, model: "keeps-its-responses" },
      },
      { type: "tool", id: null, content: FOUND, name: "lookup", toolCallId: "c1", arguments: null },
      { type: "tool", id: null, content: FOUND, name: "lookup", toolCallId: "c2", arguments: null },
      {
        type: "ai",
        id: null,
        content: "done",
        refusal: null,
        toolCalls: [],
        reasoning: [],
        finishReason: null,
        usage: {},
      },
    ]);
    const held = JSON.stringify(result.state);
    const warm = await agent.getState("t");
    expect(JSON.stringify(warm.state)).toBe(held);
    const cold = await buildReactAgent(setup().chat, {
      tools: [setup().lookup],
      stateStore: await fx.reopen(store),
    }).getState("t");
    expect(JSON.stringify(cold.state)).toBe(held);
    expect(cold.state).toEqual(result.state);
    expect(cold.state).toEqual(warm.state);
  });

  // A task reads its state one level deep (items shared): a node that changes a message of its
  // state in place changes the run's state, never what the store keeps of the update that
  // wrote it, in any durability (the "exit" one writes the log when the run ends).
  for (const durability of ["sync", "async", "exit"] as const) {
    it(`a node changing a stored message in place changes nothing stored (${durability})`, async () => {
      const State = defineState({ messages: messagesField() });
      const build = (store: StateStore) => {
        const write = node(
          () => ({
            messages: [
              {
                type: "ai",
                id: "m1",
                content: "x",
                toolCalls: [{ id: "c", name: "t", arguments: { q: "1" } }],
              },
            ],
          }),
          { name: "write" },
        );
        const change = node(
          (s: { messages: Message[] }) => {
            const m = s.messages[0] as unknown as Loose;
            m.content = "changed";
            (m.toolCalls as Loose[])[0]!.arguments = { q: "changed" };
            return { messages: [{ type: "human", id: "m2", content: "y" }] };
          },
          { name: "change" },
        );
        return new Graph(State, { stateStore: store }).flow(
          START.to(write),
          write.to(change),
          change.to(END),
        );
      };
      const store = await fx.open();
      await build(store).invoke({}, { threadId: "t", durability });
      const cold = await build(await fx.reopen(store)).getState("t");
      expect(cold.state.messages).toEqual([
        {
          type: "ai",
          id: "m1",
          content: "x",
          refusal: null,
          toolCalls: [{ id: "c", name: "t", arguments: { q: "1" }, argumentsError: null }],
          reasoning: [],
          finishReason: null,
          usage: {},
        },
        { type: "human", id: "m2", content: "y" },
      ]);
    });
  }
});
