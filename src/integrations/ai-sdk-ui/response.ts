/**
 * The UI message stream as an HTTP answer: a web `Response` (Next.js route handlers, Hono,
 * any fetch-style server) and a helper that writes one to a Node `ServerResponse` (Express,
 * `node:http`).
 *
 * @module
 */
import type { ServerResponse } from "node:http";
import type { StreamEvent } from "../../graph/types.js";
import { toUIMessageChunks, type UIStreamOptions } from "./to-chunks.js";
import type { UIStreamChunk } from "./types.js";

/**
 * The headers of a UI message stream answer, as the `ai` package sends them
 * (`UI_MESSAGE_STREAM_HEADERS`): server-sent events, no caching, no proxy buffering and the
 * protocol marker `x-vercel-ai-ui-message-stream: v1`.
 */
export const UI_STREAM_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  connection: "keep-alive",
  "x-vercel-ai-ui-message-stream": "v1",
  "x-accel-buffering": "no",
};

/** Options of {@link uiStreamResponse}: those of the stream and of the answer. */
export interface UIStreamResponseOptions extends UIStreamOptions {
  /** HTTP status; default 200. */
  status?: number;
  /** More headers; they are added to (and may replace) {@link UI_STREAM_HEADERS}. */
  headers?: Record<string, string>;
}

/**
 * Chunks as server-sent events: `data: <chunk as JSON>\n\n` each, then `data: [DONE]\n\n`,
 * UTF-8. Cancelling the stream (the client went away) closes `chunks`.
 *
 * With `options.cancel` (what stops the source of `chunks`: {@link uiStreamResponse} passes
 * the run stream's `return`), chunks that are ready together go out as one piece of the body
 * (at most {@link SSE_BATCH} of them): after the first chunk of a piece, the chunks that
 * arrive before the event loop's next turn (`setImmediate`) join it. A token stream then
 * costs a write per turn of the event loop, not per token; no chunk waits longer than that
 * turn. (A chunk asked for and not yet there may be outstanding when the body is cancelled;
 * `cancel` stops its source, so that it settles.) Without it, one chunk per piece.
 */
export function uiChunksToSse(
  chunks: AsyncIterable<UIStreamChunk>,
  options: { cancel?: () => unknown } = {},
): ReadableStream<Uint8Array> {
  const batch = options.cancel !== undefined;
  const encoder = new TextEncoder();
  const iterator = chunks[Symbol.asyncIterator]();
  let done = false;
  /** A `next()` asked for and not used yet (it lost the race with the turn's end). */
  let pending: Promise<IteratorResult<UIStreamChunk>> | null = null;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (done) return;
      let r = await (pending ?? iterator.next());
      pending = null;
      let text = "";
      let turnOver = false;
      const turn = new Promise<typeof TURN>((resolve) =>
        setImmediate(() => {
          turnOver = true;
          resolve(TURN);
        }),
      );
      for (let n = 0; ; n++) {
        if (r.done) {
          done = true;
          controller.enqueue(encoder.encode(`${text}data: [DONE]\n\n`));
          controller.close();
          return;
        }
        text += `data: ${JSON.stringify(r.value)}\n\n`;
        if (!batch || n + 1 >= SSE_BATCH || turnOver) break;
        const next = iterator.next();
        const won = await Promise.race([next, turn]);
        if (won === TURN) {
          // (Read by the next pull; a failure of it is reported there, not as unhandled.)
          next.catch(() => {});
          pending = next;
          break;
        }
        r = won;
      }
      controller.enqueue(encoder.encode(text));
    },
    async cancel() {
      done = true;
      if (pending) await options.cancel?.();
      await iterator.return?.();
    },
  });
}

/** At most this many chunks go out in one piece of a UI stream's body. */
export const SSE_BATCH = 256;

const TURN = Symbol("turn");

/**
 * A run's stream as the web `Response` `useChat` reads: the chunks of
 * {@link toUIMessageChunks} as server-sent events with {@link UI_STREAM_HEADERS}. Return it
 * from a Next.js route handler or a Hono route; in Express write it with
 * {@link writeUIStreamToNode}. The run goes on while the client reads, and is cancelled when
 * the client goes away (the body is cancelled).
 *
 * @param events - `graph.stream(input, { modes: UI_STREAM_MODES, ... })`.
 * @param options - the stream's options, and `status` and `headers` of the answer.
 * @example
 * ```ts
 * // app/api/chat/route.ts (Next.js)
 * export async function POST(req: Request) {
 *   const turn = uiChatTurn(await req.json());
 *   return uiStreamResponse(agent.stream(turn.input, { threadId: turn.threadId, resume: turn.resume, modes: UI_STREAM_MODES }));
 * }
 * ```
 */
export function uiStreamResponse(
  events: AsyncIterable<StreamEvent>,
  options: UIStreamResponseOptions = {},
): Response {
  const { status, headers, ...streamOptions } = options;
  const run = events[Symbol.asyncIterator]();
  const source: AsyncIterable<StreamEvent> = { [Symbol.asyncIterator]: () => run };
  const chunks = toUIMessageChunks(source, streamOptions);
  return new Response(uiChunksToSse(chunks, { cancel: () => run.return?.() }), {
    status: status ?? 200,
    headers: { ...UI_STREAM_HEADERS, ...headers },
  });
}

/**
 * Write a web `Response` (such as {@link uiStreamResponse}'s) to a Node `ServerResponse`:
 * status, headers, then the body as it comes. When the client goes away first, the body is
 * cancelled (which cancels the run). Resolves when the body is written or cancelled.
 *
 * @example
 * ```ts
 * app.post("/api/chat", async (req, res) => {
 *   const turn = uiChatTurn(req.body);
 *   await writeUIStreamToNode(uiStreamResponse(agent.stream(turn.input, { threadId: turn.threadId, resume: turn.resume, modes: UI_STREAM_MODES })), res);
 * });
 * ```
 */
export async function writeUIStreamToNode(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => {
    headers[key] = value;
  });
  res.writeHead(response.status, headers);
  res.flushHeaders();
  const body = response.body;
  if (!body) {
    res.end();
    return;
  }
  const reader = body.getReader();
  const onClose = () => {
    void reader.cancel().catch(() => {});
  };
  res.on("close", onClose);
  try {
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      if (res.destroyed) break;
      if (!res.write(r.value)) {
        await new Promise<void>((resolve) => {
          const go = () => {
            res.off("drain", go);
            res.off("close", go);
            resolve();
          };
          res.on("drain", go);
          res.on("close", go);
        });
      }
    }
  } finally {
    res.off("close", onClose);
    if (!res.destroyed) res.end();
  }
}
