/**
 * `POST /api/threads/:threadId/state`: change a thread's state from outside a node
 * (`graph.updateState`, LangGraph's `updateState`). Body `{ values, asNode?, branchId? }`:
 * `values` goes through the reducers as if `asNode` had returned it (without `asNode`, what
 * was next stays next). Answers the state after it, as `GET …/state` does; 400
 * `StateUpdateError` / `ValueError` for an update the graph refuses (a field it does not
 * have, a value its schema rejects, a node it does not have), 404 for an unknown thread or
 * branch, 409 while a run holds the thread.
 *
 * @module
 */
import type { Context, Hono } from "hono";
import { z } from "zod";
import { HttpError } from "./errors.js";
import { onlyQuery } from "./request.js";
import type { ServedGraph } from "./types.js";

/** What the route uses of the app's helpers (request.ts). */
export interface StateRouteHelpers {
  param(c: Context, name: string): string;
  readJson<T>(c: Context, schema: z.ZodType<T>): Promise<T>;
  Id: z.ZodType<string>;
}

/** Add `POST /api/threads/:threadId/state` to `app`. */
export function addStateRoute(app: Hono, graph: ServedGraph, h: StateRouteHelpers): void {
  const Body = z.strictObject({
    values: z.record(z.string(), z.json()),
    asNode: z.string().min(1).max(200).optional(),
    branchId: h.Id.optional(),
  });
  app.post("/api/threads/:threadId/state", onlyQuery(), async (c) => {
    const threadId = h.param(c, "threadId");
    const body = await h.readJson(c, Body);
    const branchId = body.branchId ?? "main";
    const before = await graph.getState(threadId, { branchId });
    if (before.lastEventId === null) {
      throw new HttpError(404, "UnknownThread", `Thread "${threadId}" has no events`);
    }
    const snapshot = await graph.updateState(
      threadId,
      body.values as never,
      body.asNode === undefined ? { branchId } : { branchId, asNode: body.asNode },
    );
    return c.json({ threadId, branchId, ...snapshot });
  });
}
