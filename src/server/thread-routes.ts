/**
 * The thread routes of the server: list and create threads, delete one, read its state at a
 * point, its raw history, and fork it from an event.
 *
 * @module
 */
import { randomBytes } from "node:crypto";
import type { Hono } from "hono";
import type { StateStore } from "../stores/types.js";
import { HttpError } from "./errors.js";
import { count, onlyQuery, param, query, readJson } from "./request.js";
import { CreateThreadBody, ForkBody } from "./request-schemas.js";
import type { ServedGraph } from "./types.js";

/** How many threads `GET /api/threads` lists without a `limit`: the 100 most recent. */
export const DEFAULT_THREADS_PAGE = 100;
/** The largest `limit` of `GET /api/threads`: page with `offset` for more. */
export const MAX_THREADS_PAGE = 1000;

/** 404 `UnknownThread`: the thread has no events. */
export function unknownThread(threadId: string): HttpError {
  return new HttpError(404, "UnknownThread", `Thread "${threadId}" has no events`);
}

/**
 * Add to `app` (after the guards):
 *
 * - `GET /api/threads[?limit=&offset=]`: `{ threads }` of the store's `listThreads`, one page:
 *   `limit` 1 to {@link MAX_THREADS_PAGE} (default {@link DEFAULT_THREADS_PAGE}), `offset` ≥ 0;
 *   400 `InvalidRequest` past them.
 * - `POST /api/threads` `{ threadId? }`: 201 `{ threadId }` (a new `t-<hex>` without one);
 *   409 `ThreadExists`.
 * - `DELETE /api/threads/:threadId[?children=true|false]`: `{ deleted }`; 404 `UnknownThread`.
 * - `GET /api/threads/:threadId/state[?branchId=&eventId=]`: the state snapshot; 404.
 * - `GET /api/threads/:threadId/history[?branchId=]`: `{ threadId, branchId, events }`; 404.
 * - `POST /api/threads/:threadId/fork` `{ eventId, branchId? }`: 201 the new branch;
 *   409 `BranchExists`.
 */
export function addThreadRoutes(app: Hono, graph: ServedGraph, store: StateStore): void {
  app.get("/api/threads", onlyQuery("limit", "offset"), async (c) => {
    const limit = count(query(c, "limit"), "limit", 1, MAX_THREADS_PAGE) ?? DEFAULT_THREADS_PAGE;
    const offset = count(query(c, "offset"), "offset", 0);
    return c.json({
      threads: await store.listThreads(offset === undefined ? { limit } : { limit, offset }),
    });
  });

  app.delete("/api/threads/:threadId", onlyQuery("children"), async (c) => {
    const threadId = param(c, "threadId");
    const children = query(c, "children");
    if (children !== undefined && children !== "true" && children !== "false") {
      throw new HttpError(400, "InvalidRequest", 'children must be "true" or "false"');
    }
    const deleted = await graph.deleteThread(threadId, { children: children === "true" });
    if (deleted.length === 0) throw unknownThread(threadId);
    return c.json({ deleted });
  });

  app.post("/api/threads", onlyQuery(), async (c) => {
    const body = await readJson(c, CreateThreadBody);
    const threadId = body.threadId ?? `t-${randomBytes(6).toString("hex")}`;
    if ((await store.read(threadId, "main", { uptoSeq: 1 })).length > 0) {
      throw new HttpError(409, "ThreadExists", `Thread "${threadId}" already exists`);
    }
    return c.json({ threadId }, 201);
  });

  app.get("/api/threads/:threadId/state", onlyQuery("branchId", "eventId"), async (c) => {
    const threadId = param(c, "threadId");
    const branchId = query(c, "branchId") ?? "main";
    const eventId = query(c, "eventId");
    const snapshot = await graph.getState(
      threadId,
      eventId === undefined ? { branchId } : { branchId, eventId },
    );
    if (snapshot.lastEventId === null) throw unknownThread(threadId);
    return c.json({ threadId, branchId, ...snapshot });
  });

  app.get("/api/threads/:threadId/history", onlyQuery("branchId"), async (c) => {
    const threadId = param(c, "threadId");
    const branchId = query(c, "branchId") ?? "main";
    const events = await graph.history(threadId, { branchId });
    if (events.length === 0) throw unknownThread(threadId);
    return c.json({ threadId, branchId, events });
  });

  app.post("/api/threads/:threadId/fork", onlyQuery(), async (c) => {
    const threadId = param(c, "threadId");
    const body = await readJson(c, ForkBody);
    if (body.branchId !== undefined && (await store.getBranch(threadId, body.branchId))) {
      throw new HttpError(
        409,
        "BranchExists",
        `Thread "${threadId}" already has a branch "${body.branchId}"`,
      );
    }
    const branch = await graph.fork(
      threadId,
      body.branchId === undefined
        ? { eventId: body.eventId }
        : { eventId: body.eventId, branchId: body.branchId },
    );
    return c.json(branch, 201);
  });
}
