import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { type ChatStreamChunk, HumanMessage, type Message, ScriptedChat } from "../chat/index.js";
import { Graph } from "../graph/graph.js";
import { START } from "../graph/node.js";
import { END } from "../graph/routing.js";
import { subgraph } from "../graph/subgraph.js";
import type { StreamEvent } from "../graph/types.js";
import { SqliteStateStore } from "../integrations/sqlite/index.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import { tool } from "../tools/tool.js";
import { AgentState } from "./agent-state.js";
import { buildReactAgent } from "./react-agent.js";
import { isMessagesEvent, isTokensEvent } from "./stream-events.js";

const status = tool(({ orderId }) => (orderId === "A-1" ? "shipped" : "unknown"), {
  name: "status",
  description: "Order status.",
  input: z.object({ orderId: z.string() }),
  output: z.string(),
});

const script = () =>
  new ScriptedChat([
    { toolCalls: [{ id: "c1", name: "status", arguments: { orderId: "A-1" } }] },
    "A-1 has shipped.",
  ]);

const dir = mkdtempSync(join(tmpdir(), "nodestep-messages-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ask = { messages: [HumanMessage({ content: "where is A-1?" })] };

async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

describe('stream mode "messages"', () => {
  it("each complete message a node writes, with its node, step and task, and the id the state keeps", async () => {
    const agent = buildReactAgent(script(), {
      tools: [status],
      stateStore: new MemoryStateStore(),
    });
    const events = await collect(agent.stream(ask, { threadId: "t", modes: ["messages"] }));
    const { state } = await agent.getState("t");
    expect(events.map((e) => [e.mode, e.node, e.step, e.taskId])).toEqual([
      ["messages", "think", 0, "0:0"],
      ["messages", "act", 1, "1:0"],
      ["messages", "think", 2, "2:0"],
    ]);
    // The human input is not written by a node; the three others are exactly the state's.
    expect(events.map((e) => e.data)).toEqual(state.messages.slice(1));
    expect(
      events.map((e) => {
        const m = e.data as Message;
        return [m.type, m.content];
      }),
    ).toEqual([
      ["ai", null],
      ["tool", `{"result":"shipped"}`],
      ["ai", "A-1 has shipped."],
    ]);
    expect(state.messages.slice(1).every((m) => typeof m.id === "string")).toBe(true);
  });

  it("follows the tokens of a streamed call: the chunks, then the message they make", async () => {
    const agent = buildReactAgent(new ScriptedChat(["Hello there."]), { tools: [], stream: true });
    const events = await collect(agent.stream(ask, { modes: ["tokens", "messages"] }));
    expect(
      events.map((e) => [
        e.mode,
        e.mode === "tokens"
          ? ((e.data as ChatStreamChunk).contentDelta ?? null)
          : (e.data as Message).content,
      ]),
    ).toEqual([
      ["tokens", "Hello "],
      ["tokens", "there."],
      ["tokens", null],
      ["messages", "Hello there."],
    ]);
  });

  it("a subgraph's messages are named <name>/<node>", async () => {
    const agent = buildReactAgent(script(), { tools: [status], name: "inner" });
    const research = subgraph("research", agent, { share: ["messages"], childThread: "fresh" });
    const parent = new Graph(AgentState, { name: "outer" }).flow(
      START.to(research),
      research.to(END),
    );
    const events = await collect(parent.stream(ask, { modes: ["messages"] }));
    expect(events.map((e) => [e.node, e.step, e.taskId, (e.data as Message).type])).toEqual([
      ["research/think", 0, "0:0/0:0", "ai"],
      ["research/act", 0, "0:0/1:0", "tool"],
      ["research/think", 0, "0:0/2:0", "ai"],
    ]);
  });

  it("isMessagesEvent and isTokensEvent narrow an event's data", async () => {
    const agent = buildReactAgent(new ScriptedChat(["Hi."]), { tools: [], stream: true });
    const seen: string[] = [];
    for await (const e of agent.stream(ask, { modes: ["tokens", "messages", "updates"] })) {
      if (isMessagesEvent(e)) {
        expectTypeOf(e.data).toEqualTypeOf<Message>();
        seen.push(`message ${e.data.type}`);
      } else if (isTokensEvent(e)) {
        expectTypeOf(e.data).toEqualTypeOf<ChatStreamChunk>();
        seen.push(`token ${e.data.contentDelta ?? "-"}`);
      } else seen.push(e.mode);
    }
    expect(seen).toEqual(["token Hi.", "token -", "message ai", "updates"]);
  });

  it("a tool that asks first: nothing from act until the answer; a cold resume sends its message, then the answer's", async () => {
    const refund = tool((_args, ctx) => (ctx.interrupt("Refund?") === true ? "refunded" : "no"), {
      name: "refund",
      description: "Refund an order.",
      input: z.object({}),
      output: z.string(),
    });
    const file = join(dir, "approve.db");
    const first = new SqliteStateStore({ path: file });
    const agent = buildReactAgent(
      new ScriptedChat([{ toolCalls: [{ id: "c1", name: "refund", arguments: {} }] }]),
      { tools: [refund], stateStore: first },
    );
    const paused = await collect(agent.stream(ask, { threadId: "r", modes: ["messages"] }));
    await first.close();
    expect(paused.map((e) => [e.node, e.step, (e.data as Message).type])).toEqual([
      ["think", 0, "ai"],
    ]);
    // A new process: a new agent (its model has the one answer left) on a reopened file.
    const second = new SqliteStateStore({ path: file });
    const again = buildReactAgent(new ScriptedChat(["Refunded."]), {
      tools: [refund],
      stateStore: second,
    });
    const resumed = await collect(
      again.stream(null, { threadId: "r", resume: { "1:0#c1": true }, modes: ["messages"] }),
    );
    const { state } = await again.getState("r");
    await second.close();
    expect(
      resumed.map((e) => [
        e.node,
        e.step,
        e.taskId,
        (e.data as Message).type,
        (e.data as Message).content,
      ]),
    ).toEqual([
      ["act", 1, "1:0", "tool", '{"result":"refunded"}'],
      ["think", 2, "2:0", "ai", "Refunded."],
    ]);
    expect([...paused, ...resumed].map((e) => e.data)).toEqual(state.messages.slice(1));
  });

  it("is not sent to a run that does not stream it", async () => {
    const agent = buildReactAgent(script(), { tools: [status] });
    const events = await collect(agent.stream(ask, { modes: ["updates"] }));
    expect(events.map((e) => [e.mode, e.node])).toEqual([
      ["updates", "think"],
      ["updates", "act"],
      ["updates", "think"],
    ]);
  });
});
