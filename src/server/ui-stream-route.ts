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
import type { StreamMode } from "../graph/context.js";
import { toUIMessages } from "../integrations/ai-sdk-ui/history.js";
import { uiChatTurn } from "../integrations/ai-sdk-ui/request.js";
import { uiStreamResponse } from "../integrations/ai-sdk-ui/response.js";
import { UI_STREAM_MODES } from "../integrations/ai-sdk-ui/to-chunks.js";
import type { JsonValue } from "../json/index.js";
import { HttpError } from "./errors.js";
import type { ServerRun } from "./run-registry.js";
import { runEvents } from "./run-stream.js";
import type { ServedGraph } from "./types.js";

/** What the routes need from the server. */
export interface UIRouteHelpers {
  param(c: Context, name: string): string;
  query(c: Context, name: string): string | undefined;
  readJson<T>(c: Context, schema: z.ZodType<T>): Promise<T>;
  /** The run `context` every run gets. */
  context: unknown;
  /**
   * Start a run in the server's registry (joinable, counted against its limit), in process or
   * on the workers: see `startServerRun`. @throws HttpError 429, and the run's early errors.
   */
  startRun(how: {
    threadId: string;
    branchId: string;
    detached: boolean;
    messageId: string | null;
    input: Record<string, unknown> | null;
    modes: readonly StreamMode[];
    extras: { resume?: Record<string, JsonValue> };
  }): Promise<ServerRun>;
}

/**
 * Add the AI SDK routes to `app` (after the host, CORS, API key and body limit checks):
 *
 * - `POST /api/threads/:threadId/ui-stream[?branchId=&onDisconnect=]`: the body is what `useChat` sends
 *   (`{ id, messages, trigger, ... }`, read by `uiChatTurn`: the last user message is the
 *   input, approval answers resume the run); the answer is the UI message stream. The URL
 *   names the thread (the body's `id` is not used). 400 for a body `uiChatTurn` refuses,
 *   409 for a busy thread, 404 for an unknown branch; an error later in the run is an `error`
 *   chunk in the stream, `429` when the server runs its maximum. The client leaving cancels
 *   the run, unless `onDisconnect=continue`: then it goes on, and
 *   `GET …/ui-stream/:chatId/stream` replays it (`useChat({ resume: true })`).
 * - `GET /api/threads/:threadId/ui-messages[?branchId=]`: `{ threadId, branchId, messages }`,
 *   the thread's `messages` as `UIMessage`s (`toUIMessages`, pending approvals included);
 *   404 for a thread with no events.
 */
export function addUIStreamRoutes(app: Hono, graph: ServedGraph, helpers: UIRouteHelpers): void {
  const { param, query, readJson } = helpers;

  app.post("/api/threads/:threadId/ui-stream", async (c) => {
    const threadId = param(c, "threadId");
    const branchId = query(c, "branchId") ?? "main";
    const onDisconnect = query(c, "onDisconnect") ?? "cancel";
    if (onDisconnect !== "cancel" && onDisconnect !== "continue") {
      throw new HttpError(
        400,
        "InvalidRequest",
        `onDisconnect must be "cancel" or "continue", got "${onDisconnect}"`,
      );
    }
    const body = await readJson(c, z.unknown());
    const turn = uiChatTurn(body);
    const detached = onDisconnect === "continue";
    const run = await helpers.startRun({
      threadId,
      branchId,
      detached,
      messageId: turn.messageId ?? null,
      input: turn.input as Record<string, unknown> | null,
      modes: UI_STREAM_MODES,
      extras: turn.resume !== undefined ? { resume: turn.resume as Record<string, JsonValue> } : {},
    });
    const events = runEvents(run, c.req.raw.signal, () => {
      if (!detached) run.controller.abort();
    });
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
