/**
 * The studio's history routes: `GET /api/threads/:threadId/history-view` (a branch's events as
 * readable entries with their state diffs) and `GET /api/threads/:threadId/branches` (the
 * thread's branches as a tree of forks).
 *
 * @module
 */
import type { Context, Hono } from "hono";
import { eventSummary } from "../cli/history-format.js";
import type { BranchInfo, StateStore, StoredEvent } from "../stores/types.js";
import { HttpError } from "./errors.js";
import { historyEntries } from "./history-view.js";
import { onlyQuery } from "./request.js";
import type { ServedGraph } from "./types.js";
import type { BranchNode } from "./wire-types.js";

/** How many entries `GET …/history-view` answers by default: the latest 500. */
export const DEFAULT_HISTORY_ENTRIES = 500;
/** The largest `limit` of `GET …/history-view`. */
export const MAX_HISTORY_ENTRIES = 5000;

export type { BranchNode } from "./wire-types.js";

/**
 * A thread's branches as trees: each root (`"main"`, and a branch whose parent is missing) with
 * its forks under it, ordered by fork point (seq) then branch id.
 *
 * @param forkPoints - the event each fork starts after, by branch id (for its id and summary).
 * @example branchTree([{ branchId: "main", parent: null, ... }, { branchId: "alt", parent: { branchId: "main", seq: 3 }, ... }], new Map())
 * // [{ branchId: "main", parent: null, lastSeq: 5, children: [{ branchId: "alt", ... }] }]
 */
export function branchTree(
  branches: readonly BranchInfo[],
  forkPoints: ReadonlyMap<string, StoredEvent | null>,
): BranchNode[] {
  const nodes = new Map<string, BranchNode>();
  for (const b of branches) {
    const at = forkPoints.get(b.branchId) ?? null;
    nodes.set(b.branchId, {
      branchId: b.branchId,
      parent:
        b.parent === null
          ? null
          : {
              branchId: b.parent.branchId,
              seq: b.parent.seq,
              eventId: at?.id ?? null,
              summary: at === null ? "" : `${at.type}: ${eventSummary(at)}`,
            },
      lastSeq: b.lastSeq,
      children: [],
    });
  }
  const roots: BranchNode[] = [];
  for (const n of nodes.values()) {
    const parent = n.parent === null ? undefined : nodes.get(n.parent.branchId);
    (parent?.children ?? roots).push(n);
  }
  const order = (a: BranchNode, b: BranchNode) =>
    (a.parent?.seq ?? -1) - (b.parent?.seq ?? -1) ||
    (a.branchId === "main" ? -1 : b.branchId === "main" ? 1 : a.branchId < b.branchId ? -1 : 1);
  const sort = (list: BranchNode[]) => {
    list.sort(order);
    for (const n of list) sort(n.children);
  };
  sort(roots);
  return roots;
}

/**
 * Add the history routes to `app`:
 * - `GET /api/threads/:threadId/history-view[?branchId=&limit=]` → `{ threadId, branchId, total,
 *   entries }`: the latest `limit` (1 to {@link MAX_HISTORY_ENTRIES}, default
 *   {@link DEFAULT_HISTORY_ENTRIES}) of the branch's `total` entries (`HistoryEntry`s, oldest
 *   first; at most 200 changes in each diff); the whole branch is folded for them;
 * - `GET /api/threads/:threadId/branches` → `{ threadId, branches }` (`BranchNode` trees).
 * Both answer 404 `UnknownThread` for a thread with no events and `UnknownBranch` for an
 * unknown branch. The branch listing costs one `store.listBranches` (one query of the
 * thread's branch rows) and one read of each fork's fork-point event.
 */
export function addHistoryRoutes(
  app: Hono,
  graph: ServedGraph,
  store: StateStore,
  read: {
    param(c: Context, name: string): string;
    query(c: Context, name: string): string | undefined;
  },
): void {
  const unknown = (threadId: string) =>
    new HttpError(404, "UnknownThread", `Thread "${threadId}" has no events`);
  app.get("/api/threads/:threadId/history-view", onlyQuery("branchId", "limit"), async (c) => {
    const threadId = read.param(c, "threadId");
    const branchId = read.query(c, "branchId") ?? "main";
    const limitText = read.query(c, "limit");
    const limit = limitText === undefined ? DEFAULT_HISTORY_ENTRIES : Number(limitText);
    if (
      limitText !== undefined &&
      (!/^[0-9]{1,6}$/.test(limitText) || limit < 1 || limit > MAX_HISTORY_ENTRIES)
    ) {
      throw new HttpError(
        400,
        "InvalidRequest",
        `limit must be an integer from 1 to ${MAX_HISTORY_ENTRIES}, got "${limitText}"`,
      );
    }
    const events = await graph.history(threadId, { branchId });
    if (events.length === 0) throw unknown(threadId);
    const entries = historyEntries(graph.state, events);
    return c.json({
      threadId,
      branchId,
      total: entries.length,
      entries: entries.slice(Math.max(0, entries.length - limit)),
    });
  });
  app.get("/api/threads/:threadId/branches", onlyQuery(), async (c) => {
    const threadId = read.param(c, "threadId");
    const branches = await store.listBranches(threadId);
    if (branches.length === 0) throw unknown(threadId);
    const forkPoints = new Map<string, StoredEvent | null>();
    for (const b of branches) {
      if (b.parent !== null) {
        const at = await store.read(threadId, b.parent.branchId, {
          afterSeq: b.parent.seq - 1,
          uptoSeq: b.parent.seq,
        });
        forkPoints.set(b.branchId, at.at(-1) ?? null);
      }
    }
    return c.json({ threadId, branches: branchTree(branches, forkPoints) });
  });
}
