import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { expectError } from "../../test/helpers.js";
import { buildReactAgent } from "../agents/react-agent.js";
import { HumanMessage, type Message } from "../chat/messages.js";
import { ScriptedChat } from "../chat/scripted-chat.js";
import { ChatRequest } from "../chat/types.js";
import { SummarizationError } from "../errors/index.js";
import { SqliteStateStore } from "../integrations/sqlite/index.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import type { StateStore } from "../stores/types.js";
import { tool } from "../tools/tool.js";
import { estimateTokens } from "./history-trim.js";
import {
  SUMMARY_PROMPT,
  SummarizationMiddleware,
  type SummarizationOptions,
} from "./summarization.js";
import { UsageLedger } from "./usage-totals.js";

const lookup = tool(({ orderId }) => `${orderId} shipped`, {
  name: "lookup",
  description: "Look an order up.",
  input: z.object({ orderId: z.string() }),
});

/** An agent summarizing past 20 tokens, keeping the last 6; a new one per call (cold). */
function agentWith(
  store: StateStore,
  chat: ScriptedChat,
  summarizer: ScriptedChat,
  options: Partial<SummarizationOptions> = {},
) {
  return buildReactAgent(chat, {
    tools: [lookup],
    stateStore: store,
    middleware: [
      SummarizationMiddleware({
        model: summarizer,
        trigger: { tokens: 20 },
        keep: { tokens: 6 },
        summaryPrefix: "Summary: ",
        ...options,
      }),
    ],
  });
}

const ask = (content: string) => ({ messages: [HumanMessage({ content })] });
const shape = (ms: readonly Message[]) => ms.map((m) => `${m.type}:${m.id}`);
const callA = { toolCalls: [{ id: "c1", name: "lookup", arguments: { orderId: "A-1" } }] };

describe("SummarizationMiddleware in an agent", () => {
  it("summarizes a long thread in the step's one update; forks and cold reloads see the same", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "nodestep-summary-")), "t.db");
    const chat = new ScriptedChat([
      callA,
      "A-1 has shipped.",
      "Yes.",
      { toolCalls: [{ id: "c2", name: "lookup", arguments: { orderId: "B-2" } }] },
      "B-2 has shipped too.",
    ]);
    const summarizer = new ScriptedChat(["A-1 shipped.", "A-1 and B-2 shipped."], {
      model: "small",
    });
    const cold = () => agentWith(new SqliteStateStore({ path }), chat, summarizer);
    const stateOf = async () => (await cold().getState("t1")).state.messages;

    // Run 1: 5 + 6 + 6 + 4 = 21 tokens at the end, but at most 17 when the model is asked.
    await cold().invoke(ask("Where is order A-1?"), { threadId: "t1" });
    const run1 = await stateOf();
    expect(run1.map(estimateTokens)).toEqual([5, 6, 6, 4]);
    expect(summarizer.requests).toEqual([]);
    const [h1, a1, t1, a2] = run1 as [Message, Message, Message, Message];

    // Run 2: 23 tokens > 20. Kept: [a2, h2] (6); a1's tool result cannot start the tail.
    const r2 = await cold().invoke(ask("Sure?"), { threadId: "t1" });
    const run2 = await stateOf();
    const h2 = run2[2]!;
    const s1 = HumanMessage({ id: `summary:${t1.id}`, content: "Summary: A-1 shipped." });
    expect(run2.slice(0, 3)).toEqual([s1, a2, { type: "human", id: h2.id, content: "Sure?" }]);
    expect(shape(run2.slice(3))).toEqual([`ai:${run2[3]!.id}`]);
    expect(r2.state.messages).toEqual(run2); // warm result = cold reload
    expect(summarizer.requests[0]).toEqual(
      ChatRequest({
        messages: [
          { type: "system", id: null, content: SUMMARY_PROMPT },
          HumanMessage({
            content:
              'Conversation:\nUser: Where is order A-1?\nAssistant called lookup({"orderId":"A-1"})\nTool lookup returned: {"result":"A-1 shipped"}',
          }),
        ],
      }),
    );
    expect(chat.requests[2]!.messages).toEqual([s1, a2, h2]);

    // The log: the summary, the removals and the answer are one step's update.
    const events = await cold().history("t1");
    const summarized = events.filter(
      (e) =>
        e.type === "step_committed" && JSON.stringify(e.data).includes(`"id":"summary:${t1.id}"`),
    );
    expect(summarized).toHaveLength(1);
    const update = (
      summarized[0]!.data as { update: { messages: Array<{ type: string; id: string }> } }
    ).update.messages;
    expect(update.map((m) => (m.type === "remove" ? `-${m.id}` : `+${m.id}`))).toEqual([
      `-${h1.id}`,
      `-${a1.id}`,
      `-${t1.id}`,
      `-${a2.id}`,
      `-${h2.id}`,
      `+summary:${t1.id}`,
      `+${a2.id}`,
      `+${h2.id}`,
      `+${run2[3]!.id}`,
    ]);

    // A fork from the event before that step sees the whole history, cold.
    const before = events[events.indexOf(summarized[0]!) - 1]!;
    expect(before.type).toBe("run_started");
    const fork = await cold().fork("t1", { eventId: before.id, branchId: "before-summary" });
    const forked = await cold().getState("t1", { branchId: fork.branchId });
    expect(shape(forked.state.messages)).toEqual(shape([h1, a1, t1, a2, h2]));
    expect((await cold().getState("t1", { eventId: before.id })).state.messages).toEqual(
      forked.state.messages,
    );
    // Running the fork summarizes again, from the stored events alone: the same request.
    const forkChat = new ScriptedChat(["Yes, on the fork."]);
    const forkSummarizer = new ScriptedChat(["A-1 shipped (fork)."]);
    await agentWith(new SqliteStateStore({ path }), forkChat, forkSummarizer).invoke(null, {
      threadId: "t1",
      branchId: fork.branchId,
    });
    expect(forkSummarizer.requests).toEqual([summarizer.requests[0]]);
    expect(forkChat.requests[0]!.messages).toEqual([
      { ...s1, content: "Summary: A-1 shipped (fork)." },
      a2,
      h2,
    ]);
    expect(await stateOf()).toEqual(run2); // main is untouched

    // Run 3: the second summary folds in the first, after the tool step (27 tokens > 20).
    await cold().invoke(ask("And B-2?"), { threadId: "t1" });
    const run3 = await stateOf();
    const asOfRun2 = await cold().getState("t1", { eventId: events.at(-1)!.id });
    expect(asOfRun2.state.messages).toEqual(run2);
    expect(summarizer.requests[1]).toEqual(
      ChatRequest({
        messages: [
          { type: "system", id: null, content: SUMMARY_PROMPT },
          HumanMessage({
            content:
              "Summary so far:\nA-1 shipped.\n\nConversation:\nAssistant: A-1 has shipped.\nUser: Sure?\nAssistant: Yes.\nUser: And B-2?",
          }),
        ],
      }),
    );
    const human3 = chat.requests[3]!.messages.at(-1)!;
    expect(run3[0]).toEqual(
      HumanMessage({ id: `summary:${human3.id}`, content: "Summary: A-1 and B-2 shipped." }),
    );
    expect(run3.slice(1).map((m) => [m.type, m.content])).toEqual([
      ["ai", null],
      ["tool", '{"result":"B-2 shipped"}'],
      ["ai", "B-2 has shipped too."],
    ]);
    expect(chat.requests[4]!.messages).toEqual(run3.slice(0, 3));
    expect(summarizer.remaining).toBe(0);
    expect(chat.remaining).toBe(0);
  });

  it("usage totals keep the summarized answers and count the kept ones once", async () => {
    const store = new MemoryStateStore();
    const usage = { inputTokens: 10, outputTokens: 2 };
    const chat = new ScriptedChat([
      { ...callA, usage },
      { content: "A-1 has shipped.", usage },
      { content: "Yes.", usage },
    ]);
    const agent = agentWith(store, chat, new ScriptedChat(["A-1 shipped."]));
    await agent.invoke(ask("Where is order A-1?"), { threadId: "t" });
    await agent.invoke(ask("Sure?"), { threadId: "t" });
    const messages = (await agent.getState("t")).state.messages;
    expect(messages.map((m) => m.type)).toEqual(["human", "ai", "human", "ai"]); // summarized
    const totals = await new UsageLedger(store).thread("t");
    expect(totals.usage).toEqual({
      inputTokens: 30,
      outputTokens: 6,
      totalTokens: 36,
      cachedInputTokens: 0,
      reasoningTokens: 0,
      calls: 4, // the three answers and the summary call (which reported no usage)
    });
  });

  it('a failed summary leaves the history exactly and the run goes on (onFailure "continue")', async () => {
    const store = new MemoryStateStore();
    const chat = new ScriptedChat([callA, "A-1 has shipped.", "Yes."]);
    const summarizer = new ScriptedChat([new Error("summary model down")], { model: "small" });
    const agent = agentWith(store, chat, summarizer);
    await agent.invoke(ask("Where is order A-1?"), { threadId: "t" });
    const before = (await agent.getState("t")).state.messages;
    const events: unknown[] = [];
    for await (const e of agent.stream(ask("Sure?"), { threadId: "t", modes: ["custom"] })) {
      events.push(e.data);
    }
    expect(events).toEqual([
      { kind: "summarization_failed", model: "small", message: "summary model down" },
    ]);
    const after = (await agent.getState("t")).state.messages;
    expect(after.slice(0, 4)).toEqual(before);
    expect(after.slice(4).map((m) => [m.type, m.content])).toEqual([
      ["human", "Sure?"],
      ["ai", "Yes."],
    ]);
    expect(chat.requests[2]!.messages).toEqual(after.slice(0, 5));
    expect(summarizer.requests).toHaveLength(1);
  });

  it('with onFailure "raise" the step fails with SummarizationError, the thread as it was; a resume retries', async () => {
    const path = join(mkdtempSync(join(tmpdir(), "nodestep-summary-")), "t.db");
    const chat = new ScriptedChat([callA, "A-1 has shipped.", "Yes."]);
    const summarizer = new ScriptedChat([new Error("summary model down"), "A-1 shipped."], {
      model: "small",
    });
    const cold = () =>
      agentWith(new SqliteStateStore({ path }), chat, summarizer, { onFailure: "raise" });
    await cold().invoke(ask("Where is order A-1?"), { threadId: "t" });
    const before = (await cold().getState("t")).state.messages;
    const e = await expectError(
      () => cold().invoke(ask("Sure?"), { threadId: "t" }),
      SummarizationError,
      'SummarizationMiddleware in node "think": the summary call to model "small" failed: summary model down; the history was left as it was',
    );
    expect([e.model, e.node, (e.cause as Error).message]).toEqual([
      "small",
      "think",
      "summary model down",
    ]);
    expect(chat.requests).toHaveLength(2); // the agent's model was not asked
    const failed = await cold().getState("t");
    expect(failed.next).toEqual(["think"]);
    expect(failed.state.messages.slice(0, 4)).toEqual(before);
    expect(failed.state.messages.slice(4).map((m) => [m.type, m.content])).toEqual([
      ["human", "Sure?"],
    ]);
    const r = await cold().invoke(null, { threadId: "t" });
    expect(r.state.messages.map((m) => m.content)).toEqual([
      "Summary: A-1 shipped.",
      "A-1 has shipped.",
      "Sure?",
      "Yes.",
    ]);
    expect(summarizer.requests[1]).toEqual(summarizer.requests[0]);
  });
});
