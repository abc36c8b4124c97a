/**
 * `GET /api/thread-list`: the studio's thread listing, each thread with a title (its first
 * human message) and a search over titles and ids.
 *
 * @module
 */
import type { Context, Hono } from "hono";
import { shorten } from "../cli/format.js";
import type { StateStore, StoredEvent } from "../stores/types.js";
import { HttpError } from "./errors.js";
import { onlyQuery } from "./request.js";
import type { TitledThread } from "./wire-types.js";

export type { TitledThread } from "./wire-types.js";

/** The events of a thread read for its title: its first few on `"main"`. */
export const TITLE_EVENTS = 8;
/** A search looks at this many threads at most, the most recently updated first. */
export const MAX_SEARCH_THREADS = 1000;
/** The largest `limit` of the listing (and its default: 50). */
export const MAX_LIST_LIMIT = 500;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((p) => (isObject(p) && typeof p.text === "string" ? p.text : "")).join(" ");
}

/**
 * A thread's title from its first events: the text of the first human message in a run's
 * input (or a state update), on one line and cut to 80 characters; `null` when there is none.
 * @example threadTitle(await store.read("t1", "main", { uptoSeq: 8 })) // "Where is my order A-1002?"
 */
export function threadTitle(events: readonly StoredEvent[]): string | null {
  for (const e of events) {
    const d = e.data;
    if (!isObject(d)) continue;
    const carrier =
      e.type === "run_started" ? d.input : e.type === "state_updated" ? d.update : null;
    if (!isObject(carrier) || !Array.isArray(carrier.messages)) continue;
    for (const m of carrier.messages) {
      if (isObject(m) && m.type === "human") {
        const text = shorten(textOf(m.content), 80);
        if (text !== "") return text;
      }
    }
  }
  return null;
}

function integer(c: Context, name: string, min: number, max: number, fallback: number): number {
  const value = c.req.query(name);
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^[0-9]{1,15}$/.test(value) || n < min || n > max) {
    throw new HttpError(
      400,
      "InvalidRequest",
      `${name} must be an integer from ${min} to ${max}, got "${value}"`,
    );
  }
  return n;
}

/**
 * Add `GET /api/thread-list[?q=&limit=&offset=]` to `app`: `{ threads, more }`, the threads
 * most recently updated first with their titles (`TitledThread`); `more` says whether a next
 * page has some. `q` keeps the threads whose title or id contains it (case-insensitive),
 * among the {@link MAX_SEARCH_THREADS} most recently updated. `limit` is 1 to
 * {@link MAX_LIST_LIMIT} (default 50), `offset` ≥ 0; a bad one answers 400 `InvalidRequest`.
 * Each thread listed costs one read of its first {@link TITLE_EVENTS} events.
 */
export function addThreadListRoute(app: Hono, store: StateStore): void {
  const titled = async (t: {
    threadId: string;
    branches: string[];
    updatedAt: number;
  }): Promise<TitledThread> => ({
    threadId: t.threadId,
    title: threadTitle(await store.read(t.threadId, "main", { uptoSeq: TITLE_EVENTS })),
    branches: t.branches,
    updatedAt: t.updatedAt,
  });
  app.get("/api/thread-list", onlyQuery("q", "limit", "offset"), async (c) => {
    const limit = integer(c, "limit", 1, MAX_LIST_LIMIT, 50);
    const offset = integer(c, "offset", 0, Number.MAX_SAFE_INTEGER, 0);
    const q = (c.req.query("q") ?? "").trim().toLowerCase();
    if (q === "") {
      const page = await store.listThreads({ limit: limit + 1, offset });
      const threads = await Promise.all(page.slice(0, limit).map(titled));
      return c.json({ threads, more: page.length > limit });
    }
    const all = await Promise.all(
      (await store.listThreads({ limit: MAX_SEARCH_THREADS })).map(titled),
    );
    const found = all.filter(
      (t) => t.threadId.toLowerCase().includes(q) || (t.title ?? "").toLowerCase().includes(q),
    );
    return c.json({
      threads: found.slice(offset, offset + limit),
      more: found.length > offset + limit,
    });
  });
}
