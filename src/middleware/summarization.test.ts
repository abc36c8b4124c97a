import { describe, expect, it } from "vitest";
import { expectError } from "../../test/helpers.js";
import {
  AIMessage,
  HumanMessage,
  type Message,
  SystemMessage,
  ToolMessage,
} from "../chat/messages.js";
import { ScriptedChat } from "../chat/scripted-chat.js";
import { ToolCall } from "../chat/tool-call.js";
import { type Chat, ChatRequest } from "../chat/types.js";
import { SummarizationError, ValueError } from "../errors/index.js";
import type { NodeContext } from "../graph/context.js";
import { RemoveMessage } from "../state/add-messages.js";
import { historyChange, runRewriteHistory } from "./history-hooks.js";
import { estimateTokens } from "./history-trim.js";
import {
  isSummaryMessage,
  SUMMARY_PREFIX,
  SUMMARY_PROMPT,
  SummarizationMiddleware,
  type SummarizationOptions,
} from "./summarization.js";
import type { ModelMiddlewareContext } from "./types.js";

const emitted: unknown[] = [];
const mctx = (): ModelMiddlewareContext => ({
  model: "agent-model",
  node: {
    node: "think",
    signal: new AbortController().signal,
    trace: null,
    emit: (d: unknown) => emitted.push(d),
  } as unknown as NodeContext,
  state: {},
});
const call = (id: string, orderId: string) =>
  ToolCall.of({ id, name: "lookup", arguments: { orderId } });

// A support thread; the tokens of each message (estimateTokens: characters / 4, rounded up)
// are in the comments.
const s0 = SystemMessage({ id: "s0", content: "You help." }); // 3
const h1 = HumanMessage({ id: "h1", content: "Where is order A-1001?" }); // 6
const a1 = AIMessage({ id: "a1", toolCalls: [call("c1", "A-1001")] }); // 7
const t1 = ToolMessage({
  id: "t1",
  name: "lookup",
  toolCallId: "c1",
  content: '{"result":"shipped Monday"}',
}); // 7
const a2 = AIMessage({ id: "a2", content: "It shipped on Monday." }); // 6
const h2 = HumanMessage({ id: "h2", content: "And order B-2002?" }); // 5
const a3 = AIMessage({ id: "a3", toolCalls: [call("c2", "B-2002")] }); // 7
const t2 = ToolMessage({
  id: "t2",
  name: "lookup",
  toolCallId: "c2",
  content: '{"result":"packing"}',
}); // 5
const a4 = AIMessage({ id: "a4", content: "B-2002 is being packed." }); // 6
const h3 = HumanMessage({ id: "h3", content: "Thanks!" }); // 2
const thread: Message[] = [s0, h1, a1, t1, a2, h2, a3, t2, a4, h3]; // 54 in all

const transcriptUpTo = (n: number) =>
  [
    "User: Where is order A-1001?",
    'Assistant called lookup({"orderId":"A-1001"})',
    'Tool lookup returned: {"result":"shipped Monday"}',
    "Assistant: It shipped on Monday.",
    "User: And order B-2002?",
    'Assistant called lookup({"orderId":"B-2002"})',
    'Tool lookup returned: {"result":"packing"}',
    "Assistant: B-2002 is being packed.",
  ]
    .slice(0, n)
    .join("\n");

const make = (summarizer: Chat, options: Partial<SummarizationOptions> = {}) =>
  SummarizationMiddleware({
    model: summarizer,
    trigger: { tokens: 50 },
    keep: { tokens: 15 },
    ...options,
  });

describe("SummarizationMiddleware: where it cuts", () => {
  it("counts tokens as HistoryTrimMiddleware does (the figures the cases below use)", () => {
    expect(thread.map(estimateTokens)).toEqual([3, 6, 7, 7, 6, 5, 7, 5, 6, 2]);
  });

  it("summarizes the older turns, never starting the kept tail at a tool result", async () => {
    // keep 15 tokens: a token cut would keep [t2, a4, h3] (13), a tool result without its
    // call; the tail starts at a4 instead (8), and a3 goes into the summary with its result.
    const summarizer = new ScriptedChat(["A-1001 shipped Monday; B-2002 is being packed."]);
    const mw = make(summarizer, { keep: { tokens: 15 } });
    const out = await mw.rewriteHistory(thread, mctx());
    expect(out).toEqual([
      s0,
      HumanMessage({
        id: "summary:t2",
        content: `${SUMMARY_PREFIX}A-1001 shipped Monday; B-2002 is being packed.`,
      }),
      a4,
      h3,
    ]);
    expect(summarizer.requests).toEqual([
      ChatRequest({
        messages: [
          SystemMessage({ content: SUMMARY_PROMPT }),
          HumanMessage({ content: `Conversation:\n${transcriptUpTo(7)}` }),
        ],
      }),
    ]);
    expect(isSummaryMessage(out![1]!)).toBe(true);
  });

  it("keeps a tool call and its result together on the kept side when they fit", async () => {
    // keep 20 tokens: [a3, t2, a4, h3] is 20; adding h2 would make 25.
    const summarizer = new ScriptedChat(["A-1001 shipped Monday."]);
    const out = await make(summarizer, { keep: { tokens: 20 } }).rewriteHistory(thread, mctx());
    expect(out).toEqual([
      s0,
      HumanMessage({ id: "summary:h2", content: `${SUMMARY_PREFIX}A-1001 shipped Monday.` }),
      a3,
      t2,
      a4,
      h3,
    ]);
    expect(summarizer.requests[0]!.messages[1]).toEqual(
      HumanMessage({ content: `Conversation:\n${transcriptUpTo(5)}` }),
    );
  });

  it("keeps messages by count, folds in the previous summary, and writes a system summary", async () => {
    const old = SystemMessage({ id: "summary:t2", content: "Summary: A-1001 shipped." });
    const h4 = HumanMessage({ id: "h4", content: "Order C-3?" });
    const a5 = AIMessage({ id: "a5", toolCalls: [call("c3", "C-3")] });
    const t3 = ToolMessage({ id: "t3", name: "lookup", toolCallId: "c3", content: "lost" });
    const a6 = AIMessage({ id: "a6", content: "C-3 is lost." });
    const h5 = HumanMessage({ id: "h5", content: "Bye." });
    const history = [s0, old, a4, h3, h4, a5, t3, a6, h5];
    const summarizer = new ScriptedChat(["A-1001 shipped; B-2002 packed; C-3 lost."]);
    const mw = SummarizationMiddleware({
      model: summarizer,
      trigger: { messages: 8 },
      keep: { messages: 2 },
      summaryPrompt: "Summarize.",
      summaryPrefix: "Summary: ",
      summaryRole: "system",
    });
    const out = await mw.rewriteHistory(history, mctx());
    expect(out).toEqual([
      s0,
      SystemMessage({
        id: "summary:t3",
        content: "Summary: A-1001 shipped; B-2002 packed; C-3 lost.",
      }),
      a6,
      h5,
    ]);
    expect(summarizer.requests).toEqual([
      ChatRequest({
        messages: [
          SystemMessage({ content: "Summarize." }),
          HumanMessage({
            content: [
              "Summary so far:",
              "A-1001 shipped.",
              "",
              "Conversation:",
              "Assistant: B-2002 is being packed.",
              "User: Thanks!",
              "User: Order C-3?",
              'Assistant called lookup({"orderId":"C-3"})',
              "Tool lookup returned: lost",
            ].join("\n"),
          }),
        ],
      }),
    ]);
    // Eight messages are not over a trigger of 8: nothing is asked.
    expect(await mw.rewriteHistory(history.slice(1), mctx())).toBeUndefined();
    expect(summarizer.requests).toHaveLength(1);
  });

  it("counts an image part as PART_TOKENS and writes it as [image]", async () => {
    const pic = HumanMessage({
      id: "p1",
      content: [
        { type: "text", text: "What is in this picture? " },
        { type: "image", url: "https://example.com/cat.png" },
      ],
    });
    const cat = AIMessage({ id: "p2", content: "A cat." });
    const more = HumanMessage({ id: "p3", content: "Thanks" });
    expect([pic, cat, more].map(estimateTokens)).toEqual([1007, 2, 2]);
    const summarizer = new ScriptedChat(["The user showed a cat picture."]);
    const mw = SummarizationMiddleware({
      model: summarizer,
      trigger: { tokens: 1000 },
      keep: { tokens: 10 },
    });
    expect(await mw.rewriteHistory([pic, cat, more], mctx())).toEqual([
      HumanMessage({
        id: "summary:p1",
        content: `${SUMMARY_PREFIX}The user showed a cat picture.`,
      }),
      cat,
      more,
    ]);
    expect(summarizer.requests[0]!.messages[1]!.content).toBe(
      "Conversation:\nUser: What is in this picture? [image]",
    );
  });

  it("asks nothing within the trigger, or when only the last turn is left to keep", async () => {
    const summarizer = new ScriptedChat([]);
    const mw = make(summarizer, { keep: { tokens: 10 } });
    expect(await mw.rewriteHistory(thread.slice(1, 9), mctx())).toBeUndefined(); // 49 tokens
    const big = HumanMessage({ id: "big", content: "x".repeat(400) }); // 100 tokens
    expect(await mw.rewriteHistory([s0, big], mctx())).toBeUndefined();
    // Over the keep budget, the shortest tail that starts at a call is kept: [a3, t2].
    const out = await make(new ScriptedChat(["Earlier: A-1001."]), {
      trigger: { tokens: 40 },
      keep: { tokens: 5 },
    }).rewriteHistory(thread.slice(0, 8), mctx()); // 46 tokens
    expect(out).toEqual([
      s0,
      HumanMessage({ id: "summary:h2", content: `${SUMMARY_PREFIX}Earlier: A-1001.` }),
      a3,
      t2,
    ]);
    expect(summarizer.requests).toEqual([]);
  });
});

describe("SummarizationMiddleware: a failed summary", () => {
  it('leaves the history alone and emits summarization_failed with onFailure "continue"', async () => {
    emitted.length = 0;
    const mw = make(new ScriptedChat([new Error("summary model down")], { model: "small" }));
    expect(await mw.rewriteHistory(thread, mctx())).toBeUndefined();
    const empty = make(new ScriptedChat(["   "], { model: "small" }));
    expect(await empty.rewriteHistory(thread, mctx())).toBeUndefined();
    expect(emitted).toEqual([
      { kind: "summarization_failed", model: "small", message: "summary model down" },
      {
        kind: "summarization_failed",
        model: "small",
        message: "the summary model answered without text",
      },
    ]);
  });

  it('raises SummarizationError with onFailure "raise", the model error as cause', async () => {
    const down = new Error("summary model down");
    const mw = make(new ScriptedChat([down], { model: "small" }), { onFailure: "raise" });
    const e = await expectError(
      () => mw.rewriteHistory(thread, mctx()),
      SummarizationError,
      'SummarizationMiddleware in node "think": the summary call to model "small" failed: summary model down; the history was left as it was',
    );
    expect([e.cause, e.model, e.node]).toEqual([down, "small", "think"]);
  });

  it("lets the model's error through when the run was cancelled", async () => {
    const controller = new AbortController();
    const cancelled = new Error("cancelled");
    const chat = new ScriptedChat([
      () => {
        controller.abort();
        return cancelled;
      },
    ]);
    const ctx = { ...mctx(), node: { node: "think", signal: controller.signal } as NodeContext };
    await expect(make(chat).rewriteHistory(thread, ctx)).rejects.toBe(cancelled);
  });
});

describe("SummarizationMiddleware: options", () => {
  const chat = new ScriptedChat([]);
  it.each([
    [
      { model: {} },
      TypeError,
      "SummarizationMiddleware: model must be a Chat (with a model name and complete)",
    ],
    [
      { trigger: 5 },
      TypeError,
      "SummarizationMiddleware: trigger must be an object { tokens, messages }, got number",
    ],
    [
      { trigger: {} },
      ValueError,
      "SummarizationMiddleware: trigger needs tokens, messages or both",
    ],
    [
      { trigger: { token: 5 } },
      ValueError,
      'SummarizationMiddleware: unknown trigger key "token"; the keys are tokens, messages',
    ],
    [
      { trigger: { tokens: 0 } },
      ValueError,
      "SummarizationMiddleware: trigger.tokens must be a positive integer, got 0",
    ],
    [
      { keep: { tokens: 5, messages: 2 } },
      ValueError,
      "SummarizationMiddleware: keep needs tokens or messages (one of them)",
    ],
    [
      { keep: { tokens: 100 } },
      ValueError,
      "SummarizationMiddleware: keep.tokens (100) must be below trigger.tokens (50), or every summary would leave the conversation over the trigger",
    ],
    [
      { summaryPrompt: "" },
      ValueError,
      'SummarizationMiddleware: summaryPrompt must be a non-empty string, got ""',
    ],
    [
      { summaryRole: "ai" },
      ValueError,
      'SummarizationMiddleware: summaryRole must be "human" or "system", got "ai"',
    ],
    [
      { onFailure: "ignore" },
      ValueError,
      'SummarizationMiddleware: onFailure must be "continue" or "raise", got "ignore"',
    ],
    [
      { countTokens: 3 },
      TypeError,
      "SummarizationMiddleware: countTokens must be a function (message) => number",
    ],
  ] as const)("refuses %j", async (bad, type, message) => {
    await expectError(
      () => SummarizationMiddleware({ model: chat, trigger: { tokens: 50 }, ...(bad as object) }),
      type,
      message,
    );
  });

  it("refuses a countTokens result that is not a non-negative number, when it runs", async () => {
    const mw = make(chat, { countTokens: () => -1 });
    await expectError(
      () => mw.rewriteHistory(thread, mctx()),
      ValueError,
      "SummarizationMiddleware: countTokens returned -1 for a system message; it must return a non-negative number",
    );
  });
});

describe("the rewriteHistory hook", () => {
  it("historyChange removes what follows the shared start, then appends the new tail", () => {
    const summary = HumanMessage({ id: "summary:t1", content: "s" });
    expect(historyChange([s0, h1, a1, t1, a2], [s0, summary, a2])).toEqual([
      RemoveMessage("h1"),
      RemoveMessage("a1"),
      RemoveMessage("t1"),
      RemoveMessage("a2"),
      summary,
      a2,
    ]);
    expect(historyChange([s0, h1], [s0, { ...h1 }])).toEqual([]);
    expect(historyChange([s0, h1], [s0, { ...h1, content: "changed" }])).toEqual([
      RemoveMessage("h1"),
      { ...h1, content: "changed" },
    ]);
    expect(() => historyChange([HumanMessage({ content: "x" })], [])).toThrow(
      "rewriteHistory: the human message at index 0 has no id, so it cannot be removed; stored messages get one from addMessages",
    );
  });

  it("runs hooks in order and refuses a result that is not a message list", async () => {
    const seen: number[] = [];
    const first = {
      rewriteHistory: (h: readonly Message[]) => {
        seen.push(h.length);
        return h.slice(1);
      },
    };
    const second = { rewriteHistory: (h: readonly Message[]) => void seen.push(h.length) };
    expect(await runRewriteHistory([first, {}, second], [s0, h1, a1], mctx())).toEqual([h1, a1]);
    expect(seen).toEqual([3, 2]);
    expect(await runRewriteHistory([second], [s0], mctx())).toBeNull();
    await expectError(
      () => runRewriteHistory([{ name: "Bad", rewriteHistory: () => "no" }], [s0], mctx()),
      TypeError,
      'middleware Bad rewriteHistory returned a string ("no"), not an array of messages; return the new conversation, or nothing to keep it',
    );
  });
});
