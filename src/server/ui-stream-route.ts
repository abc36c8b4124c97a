/**
 * The server's AI SDK routes: `POST /api/threads/:threadId/ui-stream` (a run as the UI
 * message stream `useChat` reads) and `GET /api/threads/:threadId/ui-messages` (the thread's
 * conversation as `UIMessage`s, for a reloaded page).
 *
 * @module
 */
import type { Context, Hono } from "hono";
import { z } from "zod";
import type { Message } from "../chat/messages.js";
import type { StreamEvent } from "../graph/types.js";
import { toUIMessages } from "../integrations/ai-sdk-ui/history.js";
import { uiChatTurn } from "../integrations/ai-sdk-ui/request.js";
import { uiStreamResponse } from "../integrations/ai-sdk-ui/response.js";
import { UI_STREAM_MODES } from "../integrations/ai-sdk-ui/to-chunks.js";
import { HttpError } from "./errors.js";
import type { ServedGraph } from "./types.js";

/** What the routes need from the server. */
export interface UIRouteHelpers {
  param(c: Context, name: string): string;
  query(c: Context, name: string): string | undefined;
  readJson<T>(c: Context, schema: z.ZodType<T>): Promise<T>;
  /** The run `context` every run gets. */
  context: unknown;
  /** How long to wait for the run's first event before answering anyway, in ms. */
  streamStartMs: number;
}

/**
 * Wait up to `waitMs` for the first result of `iterator`, so that errors found when the run
 * starts (a busy thread, an unknown branch, bad input) are thrown here and answer with a
 * status; then an iterable of every result, the first included, that closes `iterator` when
 * left early.
 */
export async function startedStream<T>(
  iterator: AsyncIterator<T>,
  waitMs: number,
): Promise<AsyncIterable<T>> {
  const first = iterator.next();
  let timer: NodeJS.Timeout | undefined;
  const early = await Promise.race([
    first.then(
      () => null,
      (e: unknown) => ({ e }),
    ),
    new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), waitMs);
    }),
  ]);
  clearTimeout(timer);
  if (early) throw early.e;
  return {
    [Symbol.asyncIterator]() {
      let pending: Promise<IteratorResult<T>> | null = first;
      return {
        next() {
          const r = pending ?? iterator.next();
          pending = null;
          return r;
        },
        async return() {
          await iterator.return?.();
          return { done: true, value: undefined };
        },
      };
    },
  };
}

/**
 * Add the AI SDK routes to `app` (after the host, CORS, API key and body limit checks):
 *
 * - `POST /api/threads/:threadId/ui-stream[?branchId=]`: the body is what `useChat` sends
 *   (`{ id, messages, trigger, ... }`, read by `uiChatTurn`: the last user message is the
 *   input, approval answers resume the run); the answer is the UI message stream. The URL
 *   names the thread (the body's `id` is not used). 400 for a body `uiChatTurn` refuses,
 *   409 for a busy thread, 404 for an unknown branch; an error later in the run is an `error`
 *   chunk in the stream.
 * - `GET /api/threads/:threadId/ui-messages[?branchId=]`: `{ threadId, branchId, messages }`,
 *   the thread's `messages` as `UIMessage`s (`toUIMessages`, pending approvals included);
 *   404 for a thread with no events.
 */
export function addUIStreamRoutes(app: Hono, graph: ServedGraph, helpers: UIRouteHelpers): void {
  const { param, query, readJson } = helpers;

  app.post("/api/threads/:threadId/ui-stream", async (c) => {
    const threadId = param(c, "threadId");
    const branchId = query(c, "branchId") ?? "main";
    const body = await readJson(c, z.unknown());
    const turn = uiChatTurn(body);
    const iterator = graph
      .stream(turn.input, {
        threadId,
        branchId,
        modes: UI_STREAM_MODES,
        ...(turn.resume !== undefined ? { resume: turn.resume } : {}),
        ...(helpers.context !== undefined ? { context: helpers.context } : {}),
      })
      [Symbol.asyncIterator]();
    const events: AsyncIterable<StreamEvent> = await startedStream(iterator, helpers.streamStartMs);
    return uiStreamResponse(events, turn.messageId ? { messageId: turn.messageId } : {});
  });

  app.get("/api/threads/:threadId/ui-messages", async (c) => {
    const threadId = param(c, "threadId");
    const branchId = query(c, "branchId") ?? "main";
    const snapshot = await graph.getState(threadId, { branchId });
    if (snapshot.lastEventId === null) {
      throw new HttpError(404, "UnknownThread", `Thread "${threadId}" has no events`);
    }
    const state = snapshot.state as { messages?: unknown };
    const messages = Array.isArray(state.messages) ? (state.messages as Message[]) : [];
    return c.json({
      threadId,
      branchId,
      messages: toUIMessages(messages, { interrupts: snapshot.interrupts }),
    });
  });
}
