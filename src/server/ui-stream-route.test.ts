import { DefaultChatTransport, readUIMessageStream, type UIMessage } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildReactAgent } from "../agents/react-agent.js";
import { ScriptedChat } from "../chat/scripted-chat.js";
import { ApprovalMiddleware } from "../middleware/approval.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import { tool } from "../tools/tool.js";
import { createServer } from "./index.js";

const refund = tool(({ orderId }: { orderId: string }) => `refunded ${orderId}`, {
  name: "refund",
  description: "Refund an order.",
  input: z.object({ orderId: z.string() }),
});

function server() {
  const chat = new ScriptedChat([
    { content: "On it.", toolCalls: [{ id: "c1", name: "refund", arguments: { orderId: "A-1" } }] },
    "Done.",
  ]);
  const agent = buildReactAgent(chat, {
    tools: [refund],
    middleware: [ApprovalMiddleware({ tools: ["refund"], question: "Refund A-1?" })],
    stateStore: new MemoryStateStore(),
    stream: true,
  });
  return createServer({ graph: agent as never });
}

/** useChat's transport against the app, and the message it assembles. */
async function send(
  app: ReturnType<typeof createServer>,
  messages: UIMessage[],
  last?: UIMessage,
): Promise<{ message: UIMessage; status: number; errors: string[] }> {
  let status = 0;
  const transport = new DefaultChatTransport<UIMessage>({
    api: "http://127.0.0.1/api/threads/t-1/ui-stream",
    fetch: async (url, init) => {
      const res = await app.fetch(new Request(String(url), init));
      status = res.status;
      return res;
    },
  });
  const chunks = await transport.sendMessages({
    chatId: "t-1",
    messages,
    trigger: "submit-message",
    messageId: undefined,
    abortSignal: undefined,
  });
  const errors: string[] = [];
  let message: UIMessage | undefined;
  for await (const m of readUIMessageStream<UIMessage>({
    stream: chunks,
    ...(last ? { message: last } : {}),
    onError: (e) => errors.push((e as Error).message),
  })) {
    message = m;
  }
  return { message: message as UIMessage, status, errors };
}

const user: UIMessage = { id: "u1", role: "user", parts: [{ type: "text", text: "Refund A-1" }] };

async function post(app: ReturnType<typeof createServer>, body: string, type = "application/json") {
  const res = await app.fetch(
    new Request("http://127.0.0.1/api/threads/t-1/ui-stream", {
      method: "POST",
      headers: { "content-type": type },
      body,
    }),
  );
  return { status: res.status, body: await res.json() };
}

describe("POST /api/threads/:id/ui-stream and GET /api/threads/:id/ui-messages", () => {
  it("streams a turn to useChat's transport, pauses for approval, resumes on the answer, and lists the conversation", async () => {
    const app = server();
    const paused = await send(app, [user]);
    expect(paused.status).toBe(200);
    expect(paused.errors).toEqual([]);
    const tool = {
      type: "tool-refund",
      toolCallId: "c1",
      input: { orderId: "A-1" },
    };
    expect(paused.message.parts).toEqual([
      { type: "step-start" },
      { type: "text", text: "On it.", state: "done" },
      {
        ...tool,
        state: "approval-requested",
        approval: { id: "1:0#c1", requestReason: "Refund A-1?" },
      },
    ]);
    expect(paused.message.metadata).toEqual({ status: "interrupted", usage: {} });

    const listed = await app.fetch(new Request("http://127.0.0.1/api/threads/t-1/ui-messages"));
    const body = (await listed.json()) as { messages: UIMessage[] };
    expect(listed.status).toBe(200);
    expect(body.messages.map((m) => [m.role, m.parts])).toEqual([
      ["user", [{ type: "text", text: "Refund A-1" }]],
      ["assistant", paused.message.parts],
    ]);

    const answered: UIMessage = {
      ...paused.message,
      parts: paused.message.parts.map((p) =>
        p.type === "tool-refund"
          ? ({
              ...p,
              state: "approval-responded",
              approval: { id: "1:0#c1", requestReason: "Refund A-1?", approved: true },
            } as UIMessage["parts"][number])
          : p,
      ),
    };
    const done = await send(app, [user, answered], answered);
    expect(done.errors).toEqual([]);
    expect(done.message.parts).toEqual([
      { type: "step-start" },
      { type: "text", text: "On it.", state: "done" },
      {
        ...tool,
        state: "output-available",
        output: "refunded A-1",
        approval: { id: "1:0#c1", requestReason: "Refund A-1?", approved: true },
      },
      { type: "step-start" },
      { type: "text", text: "Done.", state: "done" },
    ]);
    expect(done.message.metadata).toEqual({ status: "done", usage: {} });
  });

  it("refuses malformed bodies with 4xx, and unknown threads with 404", async () => {
    const app = server();
    expect(await post(app, "{", "application/json")).toEqual({
      status: 400,
      body: {
        error: {
          type: "InvalidJson",
          message: expect.stringMatching(/^The request body is not JSON: /),
        },
      },
    });
    expect(await post(app, "{}", "text/plain")).toEqual({
      status: 415,
      body: {
        error: {
          type: "UnsupportedMediaType",
          message: "Send the request body as JSON, with Content-Type: application/json",
        },
      },
    });
    expect(await post(app, JSON.stringify({ messages: "hi" }))).toEqual({
      status: 400,
      body: {
        error: {
          type: "ValueError",
          message: "useChat request: messages: Invalid input: expected array, received string",
        },
      },
    });
    expect(
      await post(app, JSON.stringify({ messages: [{ id: "a", role: "assistant", parts: [] }] })),
    ).toEqual({
      status: 400,
      body: {
        error: {
          type: "ValueError",
          message:
            "useChat request: messages.0: the last message is an assistant message with no approval answer to send",
        },
      },
    });
    const missing = await app.fetch(new Request("http://127.0.0.1/api/threads/nope/ui-messages"));
    expect({ status: missing.status, body: await missing.json() }).toEqual({
      status: 404,
      body: { error: { type: "UnknownThread", message: 'Thread "nope" has no events' } },
    });
  });

  it("refuses a branchId query with '/', a control character or over 200 characters with 400 on the three UI routes (a '/' answered 500)", async () => {
    const app = server();
    const body = JSON.stringify({
      messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "hi" }] }],
    });
    const cases = [
      ["a%2Fb", "must not contain '/' or control characters"],
      ["%01", "must not contain '/' or control characters"],
      ["x".repeat(201), "at most 200 characters, got 201"],
    ] as const;
    for (const [branch, problem] of cases) {
      const answers = [
        await app.fetch(
          new Request(`http://127.0.0.1/api/threads/t-1/ui-stream?branchId=${branch}`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body,
          }),
        ),
        await app.fetch(
          new Request(`http://127.0.0.1/api/threads/t-1/ui-messages?branchId=${branch}`),
        ),
        await app.fetch(
          new Request(`http://127.0.0.1/api/threads/t-1/ui-stream/c1/stream?branchId=${branch}`),
        ),
      ];
      for (const res of answers) {
        expect({ status: res.status, body: await res.json() }).toEqual({
          status: 400,
          body: { error: { type: "InvalidRequest", message: `branchId: ${problem}` } },
        });
      }
    }
  });

  it("answers 409 for a second message while a run goes on on the thread", async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = tool(
      async () => {
        await gate;
        return "ok";
      },
      { name: "slow", description: "Waits." },
    );
    const agent = buildReactAgent(
      new ScriptedChat([{ toolCalls: [{ id: "c1", name: "slow", arguments: {} }] }, "Done."]),
      { tools: [slow], stateStore: new MemoryStateStore(), stream: true },
    );
    const app = createServer({ graph: agent as never });
    const body = JSON.stringify({ messages: [user] });
    const first = await app.fetch(
      new Request("http://127.0.0.1/api/threads/t-1/ui-stream", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      }),
    );
    expect(first.status).toBe(200);
    const second = await post(app, body);
    expect(second.status).toBe(409);
    expect(second.body).toEqual({
      error: {
        type: "ThreadBusyError",
        message:
          'Thread "t-1" (branch "main") is already running; graph "agent" cannot start a second run on it until the first ends (or its lease of 30000 ms expires); pass onBusy: "enqueue" to wait for it, "interrupt" to stop it or "rollback" to undo it (docs/busy-threads.md)',
      },
    });
    release();
    const text = await first.text();
    expect(
      text.endsWith(
        'data: {"type":"finish","finishReason":"stop","messageMetadata":{"status":"done","usage":{}}}\n\ndata: [DONE]\n\n',
      ),
    ).toBe(true);
  });
});
