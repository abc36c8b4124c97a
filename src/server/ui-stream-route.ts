/**
 * The server's AI SDK routes: `POST /api/threads/:threadId/ui-stream` (a run as the UI
 * message stream `useChat` reads), `GET /api/threads/:threadId/ui-messages` (the thread's
 * conversation as `UIMessage`s, for a reloaded page) and
 * `GET /api/threads/:threadId/ui-stream/:chatId/stream` (the active run's stream again, for
 * `useChat({ resume: true })`).
 *
 * @module
 */
import type { Context, Hono } from "hono";
import { z } from "zod";
import type { Message } from "../chat/messages.js";
import type { StreamMode } from "../graph/context.js";
import type { StreamEvent } from "../graph/types.js";
import { toUIMessages } from "../integrations/ai-sdk-ui/history.js";
import { uiMessageChunks } from "../integrations/ai-sdk-ui/replay.js";
import { type UIChatTurn, uiChatTurn } from "../integrations/ai-sdk-ui/request.js";
import {
  UI_STREAM_HEADERS,
  uiChunksToSse,
  uiStreamResponse,
} from "../integrations/ai-sdk-ui/response.js";
import { toUIMessageChunks, UI_STREAM_MODES } from "../integrations/ai-sdk-ui/to-chunks.js";
import type { UIMessage, UIStreamChunk } from "../integrations/ai-sdk-ui/types.js";
import type { JsonValue } from "../json/index.js";
import { isPlainObject } from "../json/index.js";
import { HttpError } from "./errors.js";
import { onlyQuery } from "./request.js";
import { findRun, type RunQueue } from "./run-queue.js";
import type { RunRegistry, ServerRun, UIRunReplay } from "./run-registry.js";
import { runEvents } from "./run-stream.js";
import type { ServedGraph } from "./types.js";

/** What the routes need from the server. */
export interface UIRouteHelpers {
  param(c: Context, name: string): string;
  query(c: Context, name: string): string | undefined;
  readJson<T>(c: Context, schema: z.ZodType<T>): Promise<T>;
  /** The run `context` every run gets. */
  context: unknown;
  /** The server's runs (the resume route finds the branch's active run there). */
  registry: RunRegistry;
  /** The workers' queue, when runs are queued (the resume route also finds other servers' runs there). */
  runQueue?: RunQueue | null;
  /** The `end` event's data of a thread's branch (a queued run's mirror reads it at its end). */
  end?: (threadId: string, branchId: string) => Promise<unknown>;
  /**
   * Start a run in the server's registry (joinable, counted against its limit), in process or
   * on the workers: see `startServerRun`. @throws HttpError 429, and the run's early errors.
   */
  startRun(how: {
    threadId: string;
    branchId: string;
    detached: boolean;
    messageId: string | null;
    ui: UIRunReplay;
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
 *   names the thread (the body's `id` is not used). 400 for a body `uiChatTurn` refuses (and on
 *   the three routes for a `branchId` with `/` or a control character, or over 200 characters),
 *   409 for a busy thread, 404 for an unknown branch; an error later in the run is an `error`
 *   chunk in the stream, `429` when the server runs its maximum. The client leaving cancels
 *   the run, unless `onDisconnect=continue`: then it goes on, and
 *   `GET …/ui-stream/:chatId/stream` replays it (`useChat({ resume: true })`).
 * - `GET /api/threads/:threadId/ui-stream/:chatId/stream[?branchId=]`: the UI message stream
 *   of the branch's active run, replayed from its start and then live: the whole assistant
 *   message (a run that continues one after an approval sends the message's earlier parts
 *   first), under the id the thread's history gives it, so that it replaces the message a
 *   reloaded page loaded from `…/ui-messages`. A run still starting (before its first event)
 *   is waited for. `204` when no run is going on; `410` when the
 *   run's first events are no longer buffered. `chatId` is not used: the URL's thread names
 *   the chat.
 * - `GET /api/threads/:threadId/ui-messages[?branchId=]`: `{ threadId, branchId, messages }`,
 *   the thread's `messages` as `UIMessage`s (`toUIMessages`, pending approvals included);
 *   404 for a thread with no events.
 */
export function addUIStreamRoutes(app: Hono, graph: ServedGraph, helpers: UIRouteHelpers): void {
  const { param, readJson } = helpers;
  const branchOf = (c: Context) => {
    // helpers.query checks a branchId (request.ts, branchIdProblem).
    return helpers.query(c, "branchId") ?? "main";
  };
  const query = helpers.query;

  app.post("/api/threads/:threadId/ui-stream", onlyQuery("branchId", "onDisconnect"), async (c) => {
    const threadId = param(c, "threadId");
    const branchId = branchOf(c);
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
      ui: await replayOf(graph, threadId, branchId, turn),
      input: turn.input as Record<string, unknown> | null,
      modes: UI_STREAM_MODES,
      extras: turn.resume !== undefined ? { resume: turn.resume as Record<string, JsonValue> } : {},
    });
    const events = runEvents(run, c.req.raw.signal, () => {
      if (!detached) run.controller.abort();
    });
    return uiStreamResponse(events, turn.messageId ? { messageId: turn.messageId } : {});
  });

  app.get("/api/threads/:threadId/ui-messages", onlyQuery("branchId"), async (c) => {
    const threadId = param(c, "threadId");
    const branchId = branchOf(c);
    const messages = await uiMessagesOf(graph, threadId, branchId);
    if (messages === null) {
      throw new HttpError(404, "UnknownThread", `Thread "${threadId}" has no events`);
    }
    return c.json({ threadId, branchId, messages });
  });

  app.get("/api/threads/:threadId/ui-stream/:chatId/stream", onlyQuery("branchId"), async (c) => {
    const threadId = param(c, "threadId");
    param(c, "chatId");
    const branchId = branchOf(c);
    // A run in its first moments (before its first event) counts: it is waited for.
    let run = await helpers.registry.currentOrStarting(threadId, branchId);
    const { runQueue, end } = helpers;
    if (!run && runQueue && end) {
      // A run going on that another server started.
      const going = (await runQueue.list(threadId)).filter(
        (f) => f.branchId === branchId && (f.status === "queued" || f.status === "running"),
      );
      const last = going.at(-1);
      if (last) run = await findRun(helpers.registry, runQueue, threadId, last.runId, end);
    }
    if (!run) return c.body(null, 204);
    if (run.firstBufferedId > 1) {
      throw new HttpError(
        410,
        "EventsExpired",
        `Run "${run.runId}" no longer keeps its first events (it keeps ${helpers.registry.options.bufferEvents}); reload the conversation from GET /api/threads/${threadId}/ui-messages`,
      );
    }
    const found = run;
    const start = async (): Promise<[UIRunReplay | null, string | null]> => {
      // A mirror of a run another server started has no replay of its own: rebuilt from
      // the stored events.
      const ui = found.ui ?? (await storedReplay(graph, found));
      return [ui, replayMessageId(found, ui, await uiMessagesOf(graph, threadId, branchId))];
    };
    // Another reader leaving does not cancel the run: only its own client does.
    const events = runEvents(run, c.req.raw.signal, () => {});
    return new Response(uiChunksToSse(replayChunks(start, events)), {
      headers: UI_STREAM_HEADERS,
    });
  });
}

/** The thread's messages as `UIMessage`s, pending approvals included; `null` for a thread with no events. */
async function uiMessagesOf(
  graph: ServedGraph,
  threadId: string,
  branchId: string,
): Promise<UIMessage[] | null> {
  const snapshot = await graph.getState(threadId, { branchId });
  if (snapshot.lastEventId === null) return null;
  const state = snapshot.state as { messages?: unknown };
  const messages = Array.isArray(state.messages) ? (state.messages as Message[]) : [];
  return toUIMessages(messages, { interrupts: snapshot.interrupts });
}

/**
 * What a replay of the run will need: for a new user message its id; for answers to
 * approvals the chunks that rebuild the thread's last assistant message as the client has it
 * now (the calls answered in state `approval-responded`).
 */
async function replayOf(
  graph: ServedGraph,
  threadId: string,
  branchId: string,
  turn: UIChatTurn,
): Promise<UIRunReplay> {
  if (turn.input !== null) {
    const sent = Object.values(turn.input)[0];
    const first = Array.isArray(sent) ? (sent[0] as { id?: unknown } | undefined) : undefined;
    return { userMessageId: typeof first?.id === "string" ? first.id : null, prefix: [] };
  }
  return continuedReplay(await uiMessagesOf(graph, threadId, branchId), turn.resume);
}

/** The replay of a run that continues the last assistant message of `messages` with `resume`. */
function continuedReplay(
  messages: UIMessage[] | null,
  resume: Record<string, unknown> | undefined,
): UIRunReplay {
  const last = messages?.at(-1);
  if (last?.role !== "assistant") return { userMessageId: null, prefix: [] };
  for (const part of last.parts) {
    const approval = "approval" in part ? part.approval : undefined;
    const answer = approval ? resume?.[approval.id] : undefined;
    if (!approval || !isPlainObject(answer) || typeof answer.approved !== "boolean") continue;
    if ("state" in part && part.state === "approval-requested") part.state = "approval-responded";
    approval.approved = answer.approved;
    if (typeof answer.reason === "string" && answer.reason) approval.reason = answer.reason;
  }
  return { userMessageId: null, prefix: uiMessageChunks(last) };
}

/** How often (ms) {@link storedReplay} reads the store again while a run's `run_started` is not stored yet. */
export const STORED_REPLAY_POLL_MS = 25;

/** Resolves when `next` does or after `ms`, whichever comes first (the timer is then cleared). */
function changedOrAfter(next: Promise<void>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const after = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return Promise.race([next, after]).finally(() => clearTimeout(timer));
}

/**
 * The replay of a run another server started, from the stored events alone: the branch's
 * `run_started` of the run (its first part: a run taken over goes on as `<runId>~<n>`).
 * With input, the user message it wrote (the last human message of the state after it);
 * without, the last assistant message before it, continued with the run's stored answers.
 * A run whose `run_started` is not stored yet (still queued) is waited for: the store is read
 * again at each of the run's events and every {@link STORED_REPLAY_POLL_MS}; `null` when it
 * ends without one on the branch.
 */
export async function storedReplay(
  graph: Pick<ServedGraph, "history" | "getState">,
  run: Pick<ServerRun, "threadId" | "branchId" | "runId" | "finished" | "changed">,
): Promise<UIRunReplay | null> {
  let events: Awaited<ReturnType<ServedGraph["history"]>>;
  let at: number;
  for (;;) {
    // Waiting for the next event starts before the read: one that lands while the history is
    // read wakes the loop (waiting after the read would miss it). The run's events are its
    // stream's, not the store's: storing `run_started` sends none (a run then paused at its
    // model sends nothing more), so the store is read again every STORED_REPLAY_POLL_MS too.
    const next = run.finished ? null : run.changed();
    events = await graph.history(run.threadId, { branchId: run.branchId });
    at = events.findIndex((e) => e.type === "run_started" && e.runId === run.runId);
    if (at >= 0 || next === null) break;
    await changedOrAfter(next, STORED_REPLAY_POLL_MS);
  }
  if (at < 0) return null;
  const started = events[at]!;
  const data = isPlainObject(started.data) ? started.data : {};
  const stateAt = async (eventId: string) => {
    const snapshot = await graph.getState(run.threadId, { branchId: run.branchId, eventId });
    const state = snapshot.state as { messages?: unknown };
    const messages = Array.isArray(state.messages) ? (state.messages as Message[]) : [];
    return { messages, interrupts: snapshot.interrupts };
  };
  if (data.input !== undefined && data.input !== null) {
    const { messages } = await stateAt(started.id);
    const human = messages.findLast((m) => m.type === "human");
    return { userMessageId: human?.id ?? null, prefix: [] };
  }
  if (at === 0) return { userMessageId: null, prefix: [] };
  const before = await stateAt(events[at - 1]!.id);
  const resume = isPlainObject(data.resume) ? data.resume : undefined;
  return continuedReplay(toUIMessages(before.messages, { interrupts: before.interrupts }), resume);
}

/**
 * The message id a replay goes under: the id the thread's history gives the message the run
 * writes (so that it replaces the one a reloaded page loaded), else the run's own.
 */
function replayMessageId(
  run: ServerRun,
  ui: UIRunReplay | null,
  messages: UIMessage[] | null,
): string | null {
  const last = messages?.at(-1);
  if (last?.role === "assistant" && ui) {
    const continues = ui.userMessageId === null;
    const answers = ui.userMessageId !== null && messages?.at(-2)?.id === ui.userMessageId;
    if (continues || answers) return last.id;
  }
  return run.messageId;
}

/** `start` (with the id), the continued message's earlier parts, then the run's own chunks. */
async function* replayChunks(
  start: () => Promise<[UIRunReplay | null, string | null]>,
  events: AsyncIterable<StreamEvent>,
): AsyncGenerator<UIStreamChunk> {
  const [ui, messageId] = await start();
  yield messageId ? { type: "start", messageId } : { type: "start" };
  yield* ui?.prefix ?? [];
  for await (const chunk of toUIMessageChunks(events)) {
    if (chunk.type !== "start") yield chunk;
  }
}
