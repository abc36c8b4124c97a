/**
 * The UI message stream of a queued run, replayed by a server that did not start it: two
 * servers and a BullMQ worker in this process over one PostgreSQL schema and one Redis prefix
 * (both removed after). Server A starts the run (`POST …/ui-stream?onDisconnect=continue`);
 * server B, which has never seen the run, answers `GET …/ui-stream/:chatId/stream` with the
 * same assistant message: a new turn, and a turn that continues a message after an approval
 * (its earlier parts rebuilt from the stored events).
 */
import { readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { buildReactAgent } from "../../agents/react-agent.js";
import { ScriptedChat } from "../../chat/scripted-chat.js";
import type { Chat, ChatCallOptions, ChatRequest } from "../../chat/types.js";
import { ApprovalMiddleware } from "../../middleware/approval.js";
import { createServer, type ListeningServer, listen } from "../../server/index.js";
import type { StateStore } from "../../stores/types.js";
import { tool } from "../../tools/tool.js";
import { PostgresStateStore } from "../postgres/index.js";
import { BullMQRunQueue, runRunWorker } from "./index.js";
import { isolation, PG_URL, REDIS, waitFor } from "./sse.fixture.js";

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const refund = tool(({ orderId }: { orderId: string }) => `refunded ${orderId}`, {
  name: "refund",
  description: "Refund an order.",
  input: z.object({ orderId: z.string() }),
});

/** A chat model whose calls wait for `open()` (so that a run is still going when B joins). */
function gatedChat(script: ConstructorParameters<typeof ScriptedChat>[0]) {
  const inner = new ScriptedChat(script, { model: "scripted" });
  let open = () => {};
  let gate = new Promise<void>((r) => {
    open = r;
  });
  const chat: Chat = {
    model: inner.model,
    async complete(request: ChatRequest, options?: ChatCallOptions) {
      await gate;
      return inner.complete(request, options);
    },
    async *stream(request: ChatRequest, options?: ChatCallOptions) {
      await gate;
      yield* inner.stream(request, options);
    },
  } as Chat;
  return {
    chat,
    open: () => open(),
    close: () => {
      gate = new Promise<void>((r) => {
        open = r;
      });
    },
  };
}

async function cluster(chat: Chat) {
  const iso = isolation("uireplay");
  closers.push(() => iso.cleanup());
  const store = () => {
    const s = new PostgresStateStore({ connectionString: PG_URL, schema: iso.schema });
    closers.push(() => s.close());
    return s;
  };
  const agent = (stateStore: StateStore) =>
    buildReactAgent(chat, {
      tools: [refund],
      middleware: [ApprovalMiddleware({ tools: ["refund"], question: "Refund A-1?" })],
      stateStore,
      stream: true,
    });
  const server = async () => {
    const runQueue = new BullMQRunQueue({ connection: REDIS, prefix: iso.prefix });
    closers.push(() => runQueue.close());
    const s: ListeningServer = await listen(
      createServer({ graph: agent(store()) as never, runQueue }),
      { port: 0 },
    );
    closers.push(() => s.close());
    return { ...s, runQueue };
  };
  const [a, b] = [await server(), await server()];
  const w = await runRunWorker({
    connection: REDIS,
    prefix: iso.prefix,
    graph: agent(store()) as never,
    concurrency: 2,
  });
  closers.push(() => w.close(0));
  return { a, b };
}

/** The UI chunks of an SSE body. */
async function chunksOf(res: Response | Started): Promise<UIMessageChunk[]> {
  const text = res instanceof Response ? await res.text() : await res.rest();
  return text
    .split("\n\n")
    .map((block) =>
      block
        .split("\n")
        .find((l) => l.startsWith("data: "))
        ?.slice(6),
    )
    .filter((d): d is string => d !== undefined && d !== "[DONE]")
    .map((d) => JSON.parse(d) as UIMessageChunk);
}

/** A stream whose first SSE event (its `start` chunk) has been read; `rest()` reads the others. */
interface Started {
  rest(): Promise<string>;
}

/**
 * Read a replay's first event now: its `start` chunk (and the message id in it) is worked out
 * when the stream is first read, so reading it before the model goes on makes that moment the
 * same on both servers (the message is not stored yet), whatever the machine's speed.
 */
async function started(res: Response): Promise<Started> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes("\n\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  return {
    async rest() {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return text + decoder.decode();
        text += decoder.decode(value, { stream: true });
      }
    },
  };
}

async function messageOf(chunks: UIMessageChunk[], last?: UIMessage): Promise<UIMessage> {
  const stream = new ReadableStream<UIMessageChunk>({
    start(c) {
      for (const chunk of chunks) c.enqueue(chunk);
      c.close();
    },
  });
  let message: UIMessage | undefined;
  for await (const m of readUIMessageStream<UIMessage>({
    stream,
    ...(last ? { message: last } : {}),
  })) {
    message = m;
  }
  return message as UIMessage;
}

const user: UIMessage = { id: "u1", role: "user", parts: [{ type: "text", text: "Refund A-1" }] };

const postTurn = (url: string, messages: UIMessage[]) =>
  fetch(`${url}/api/threads/t-1/ui-stream?onDisconnect=continue`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ id: "t-1", messages, trigger: "submit-message" }),
  });

/** Wait until the queue says the thread's run is running (its worker waits at the gate). */
async function running(s: { runQueue: BullMQRunQueue }) {
  await waitFor("the run to be running", async () =>
    (await s.runQueue.list("t-1")).some((f) => f.status === "running"),
  );
}

describe("a queued run's UI stream, replayed by another server", () => {
  it("server B replays the UI stream of a run server A started: a new turn, then a turn after an approval", async () => {
    const gated = gatedChat([
      {
        content: "On it.",
        toolCalls: [{ id: "c1", name: "refund", arguments: { orderId: "A-1" } }],
      },
      "Done.",
    ]);
    const { a, b } = await cluster(gated.chat);

    // A new turn: B joins while the model waits.
    const resA = postTurn(a.url, [user]);
    await running(a);
    const resB = await fetch(`${b.url}/api/threads/t-1/ui-stream/t-1/stream`);
    const replayA = await fetch(`${a.url}/api/threads/t-1/ui-stream/t-1/stream`);
    expect([resB.status, replayA.status]).toEqual([200, 200]);
    const [startedB, startedA] = [await started(resB), await started(replayA)];
    gated.open();
    const fromA = await chunksOf(await resA);
    const fromB = await chunksOf(startedB);
    expect(fromB).toEqual(await chunksOf(startedA));
    // Both replays were first read while the model waited: the message was not stored yet, so
    // neither knows the id the history will give it.
    const listed = (await (await fetch(`${b.url}/api/threads/t-1/ui-messages`)).json()) as {
      messages: UIMessage[];
    };
    expect(listed.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(fromB[0]).toEqual({ type: "start" });
    expect(fromB.slice(1)).toEqual(fromA.slice(1));
    const paused = await messageOf(fromB);
    expect(paused.parts).toEqual(listed.messages[1]!.parts);
    expect(paused.parts.at(-1)).toEqual({
      type: "tool-refund",
      toolCallId: "c1",
      input: { orderId: "A-1" },
      state: "approval-requested",
      approval: { id: "1:0#c1", requestReason: "Refund A-1?" },
    });

    // The approval's answer continues the assistant message: B sends its earlier parts too.
    gated.close();
    const answered: UIMessage = {
      ...paused,
      // The client's copy goes under the history's id (the replay it read gave none).
      id: listed.messages[1]!.id,
      parts: paused.parts.map((p) =>
        p.type === "tool-refund"
          ? ({
              ...p,
              state: "approval-responded",
              approval: { id: "1:0#c1", requestReason: "Refund A-1?", approved: true },
            } as UIMessage["parts"][number])
          : p,
      ),
    };
    const resA2 = postTurn(a.url, [user, answered]);
    await running(a);
    const resB2 = await fetch(`${b.url}/api/threads/t-1/ui-stream/t-1/stream`);
    const replayA2 = await fetch(`${a.url}/api/threads/t-1/ui-stream/t-1/stream`);
    expect([resB2.status, replayA2.status]).toEqual([200, 200]);
    const [startedB2, startedA2] = [await started(resB2), await started(replayA2)];
    gated.open();
    const fromA2 = await chunksOf(await resA2);
    const fromB2 = await chunksOf(startedB2);
    // B, which never saw the run start, replays it as A (which started it) does.
    expect(fromB2).toEqual(await chunksOf(startedA2));
    expect(fromB2.slice(0, 2)).toEqual([
      { type: "start", messageId: listed.messages[1]!.id },
      { type: "start-step" },
    ]);
    const done = await messageOf(fromB2);
    expect(done.id).toBe(listed.messages[1]!.id);
    expect(done.parts).toEqual([
      { type: "step-start" },
      { type: "text", text: "On it.", state: "done" },
      {
        type: "tool-refund",
        toolCallId: "c1",
        input: { orderId: "A-1" },
        state: "output-available",
        output: "refunded A-1",
        approval: { id: "1:0#c1", requestReason: "Refund A-1?", approved: true },
      },
      { type: "step-start" },
      { type: "text", text: "Done.", state: "done" },
    ]);
    // A's own client already has the earlier parts; B's reader (a reloaded page) gets them first.
    expect((await messageOf(fromA2, answered)).parts).toEqual(done.parts);
  });
});
