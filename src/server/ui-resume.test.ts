/**
 * The UI stream's resume route as `useChat` uses it after a page reload: the `ai` package's
 * `AbstractChat` (what `useChat` of @ai-sdk/react runs on, here with a plain state instead of
 * React's), made again from `GET …/ui-messages`, calling `resumeStream()` (what
 * `resume: true` does when the page mounts). The browser test of examples/use-chat does the
 * same with React. The replay must build the
 * whole assistant message under the id the history gave it: no second assistant message, and
 * a run that continues a message after an approval sends that message's earlier parts first.
 */
import {
  AbstractChat,
  type ChatInit,
  type ChatState,
  type ChatStatus,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { buildReactAgent } from "../agents/react-agent.js";
import { ScriptedChat } from "../chat/scripted-chat.js";
import { ApprovalMiddleware } from "../middleware/approval.js";
import { MemoryStateStore } from "../stores/index.js";
import { tool } from "../tools/tool.js";
import { createServer, type ListeningServer, listen } from "./index.js";

/** The state of a chat as plain fields (@ai-sdk/react keeps the same in React state). */
class PlainState implements ChatState<UIMessage> {
  status: ChatStatus = "ready";
  error: Error | undefined = undefined;
  constructor(public messages: UIMessage[]) {}
  pushMessage = (m: UIMessage) => {
    this.messages = [...this.messages, m];
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (i: number, m: UIMessage) => {
    this.messages = this.messages.map((old, at) => (at === i ? m : old));
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

class Chat extends AbstractChat<UIMessage> {
  constructor({ messages, ...init }: ChatInit<UIMessage>) {
    super({ ...init, state: new PlainState(messages ?? []) });
  }
}

let server: ListeningServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

/** A refund agent whose tool waits until a reloaded chat's answer begins; `running` resolves when it is called. */
async function serve(approval: boolean) {
  let release = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let started = () => {};
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  const refund = tool(
    async ({ orderId }) => {
      started();
      await gate;
      return `refunded ${orderId}`;
    },
    { name: "refund", description: "Refund.", input: z.object({ orderId: z.string() }) },
  );
  const agent = buildReactAgent(
    new ScriptedChat([
      {
        content: "Checking A-1.",
        toolCalls: [{ id: "c1", name: "refund", arguments: { orderId: "A-1" } }],
      },
      "A-1 is refunded.",
    ]),
    {
      tools: [refund],
      middleware: approval
        ? [ApprovalMiddleware({ tools: ["refund"], question: "Refund A-1?" })]
        : [],
      stateStore: new MemoryStateStore(),
      stream: true,
    },
  );
  server = await listen(createServer({ graph: agent as never }), { port: 0 });
  const url = server.url;
  /** A `Chat`; with `reloaded`, the tool goes on once the chat's first answer has begun. */
  const chat = (messages: UIMessage[] = [], reloaded = false) =>
    new Chat({
      id: "t1",
      messages,
      transport: new DefaultChatTransport({
        fetch: async (input, init) => {
          const res = await fetch(input, init);
          if (reloaded) release(); // so the run still goes on when the resumed stream asks
          return res;
        },
        api: `${url}/api/threads/t1/ui-stream`,
        prepareSendMessagesRequest: ({ api, id, messages, trigger, messageId, body }) => ({
          api: `${api}?onDisconnect=continue`,
          body: { ...body, id, messages, trigger, messageId },
        }),
      }),
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
  const history = async () =>
    ((await (await fetch(`${url}/api/threads/t1/ui-messages`)).json()) as { messages: UIMessage[] })
      .messages;
  const runs = async () =>
    (
      (await (await fetch(`${url}/api/threads/t1/runs`)).json()) as { runs: { status: string }[] }
    ).runs.map((r) => r.status);
  return { chat, history, runs, running };
}

const json = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown;

describe("useChat's Chat after a reload: resumeStream() on the history of GET …/ui-messages", () => {
  it("a new turn reloaded while its tool runs: the replay replaces the history's message", async () => {
    const s = await serve(false);
    const before = s.chat();
    void before.sendMessage({ text: "Refund A-1" });
    await s.running;
    await before.stop(); // the page reloads
    const history = await s.history();
    expect(history.map((m) => [m.role, m.parts.length])).toEqual([
      ["user", 1],
      ["assistant", 3],
    ]);

    const after = s.chat(history, true);
    await after.resumeStream();
    expect(after.error).toBeUndefined();
    expect(json(after.messages)).toEqual([
      history[0],
      {
        id: history[1]?.id,
        role: "assistant",
        metadata: { status: "done", usage: {} },
        parts: [
          { type: "step-start" },
          { type: "text", text: "Checking A-1.", state: "done" },
          {
            type: "tool-refund",
            toolCallId: "c1",
            state: "output-available",
            input: { orderId: "A-1" },
            output: "refunded A-1",
          },
          { type: "step-start" },
          { type: "text", text: "A-1 is refunded.", state: "done" },
        ],
      },
    ]);
    expect(await s.runs()).toEqual(["done"]);
  });

  it("a turn that goes on after an approval, reloaded while the tool runs: the replay has the earlier parts", async () => {
    const s = await serve(true);
    const before = s.chat();
    await before.sendMessage({ text: "Refund A-1" });
    const asked = before.messages[1]?.parts[2] as { state: string; approval: { id: string } };
    expect(asked.state).toBe("approval-requested");
    // The answer is sent by itself (sendAutomaticallyWhen); reload once the tool runs: before
    // the run's first event, so the resume route waits for the run being started.
    void before.addToolApprovalResponse({ id: asked.approval.id, approved: true });
    await s.running;
    await before.stop();
    const history = await s.history();

    const after = s.chat(history, true);
    await after.resumeStream();
    expect(after.error).toBeUndefined();
    expect(json(after.messages)).toEqual([
      history[0],
      {
        id: history[1]?.id,
        role: "assistant",
        metadata: { status: "done", usage: {} },
        parts: [
          { type: "step-start" },
          { type: "text", text: "Checking A-1.", state: "done" },
          {
            type: "tool-refund",
            toolCallId: "c1",
            state: "output-available",
            input: { orderId: "A-1" },
            output: "refunded A-1",
            approval: { id: asked.approval.id, requestReason: "Refund A-1?", approved: true },
          },
          { type: "step-start" },
          { type: "text", text: "A-1 is refunded.", state: "done" },
        ],
      },
    ]);
    expect(await s.runs()).toEqual(["interrupted", "done"]);
    // And the thread's history says the same once the run is over.
    expect((await s.history())[1]?.parts.at(-1)).toEqual({
      type: "text",
      text: "A-1 is refunded.",
      state: "done",
    });
  });
});
