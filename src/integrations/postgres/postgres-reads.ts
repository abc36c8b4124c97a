/**
 * The PostgreSQL state store's reads: a branch's events through its parent chain, one branch,
 * one event, the thread listing and the bytes stored.
 *
 * @module
 */
import { StateStoreError } from "../../errors/index.js";
import {
  byUpdatedAt,
  type ChainLink,
  checkContiguous,
  decodeEvent,
  MAIN_BRANCH,
  planRead,
  type ReadSegment,
  unknownBranch,
} from "../../stores/internal.js";
import { unpackEvents } from "../../stores/packed-events.js";
import type { BranchInfo, StoredEvent, ThreadInfo } from "../../stores/types.js";
import {
  type BranchRow,
  branchRow,
  type DbEventRow,
  EVENT_COLUMNS,
  type PgStore,
  toEventRow,
} from "./postgres-state-sql.js";

/**
 * The events of `branchId` after `afterSeq` up to `uptoSeq`, its parents' first (two queries:
 * the chain, then the events of its segments).
 * @throws UnknownBranchError for an unknown branch other than "main"; StateStoreError for a
 *   damaged chain or row.
 */
export async function readPostgres(
  c: PgStore,
  threadId: string,
  branchId: string,
  afterSeq: number,
  uptoSeq: number,
): Promise<StoredEvent[]> {
  const t = c.t;
  const chainRows = (
    await c.pool.query<BranchRow>(
      `WITH RECURSIVE chain AS (
         SELECT branch_id, parent_branch, parent_seq, last_seq, 0 AS depth
         FROM ${t.branches} WHERE thread_id = $1 AND branch_id = $2
         UNION ALL
         SELECT p.branch_id, p.parent_branch, p.parent_seq, p.last_seq, c.depth + 1
         FROM ${t.branches} p JOIN chain c ON p.thread_id = $1 AND p.branch_id = c.parent_branch
         WHERE c.depth < 10000
       )
       SELECT branch_id, parent_branch, parent_seq, last_seq FROM chain ORDER BY depth`,
      [threadId, branchId],
    )
  ).rows;
  if (chainRows.length === 0) {
    if (branchId === MAIN_BRANCH) return [];
    throw unknownBranch(threadId, branchId);
  }
  const top = chainRows[chainRows.length - 1]!;
  if (top.parent_branch !== null) {
    throw new StateStoreError(
      `Thread "${threadId}" branch "${branchId}" is damaged: its ancestor branch "${top.parent_branch}" is missing. Restore the store from a backup.`,
      { threadId, branchId },
    );
  }
  const chain: ChainLink[] = chainRows.map((r) => ({
    branchId: r.branch_id,
    parentBranch: r.parent_branch,
    parentSeq: r.parent_seq,
    lastSeq: r.last_seq,
  }));
  const { segments, from, to } = planRead(chain, afterSeq, uptoSeq);
  if (segments.length === 0) return [];
  const packed = await readPacked(c, threadId, windowsOf(segments));
  if (packed !== null) {
    checkContiguous(threadId, branchId, packed, from, to);
    return packed;
  }
  const rows = (
    await c.pool.query<DbEventRow>(
      `SELECT ${EVENT_COLUMNS}
       FROM unnest($2::text[], $3::int[], $4::int[]) AS s(branch_id, lo, hi)
       JOIN ${t.events} e ON e.thread_id = $1 AND e.branch_id = s.branch_id AND e.seq > s.lo AND e.seq <= s.hi
       ORDER BY e.seq`,
      [
        threadId,
        segments.map((s) => s.branchId),
        segments.map((s) => s.after),
        segments.map((s) => s.upto),
      ],
    )
  ).rows;
  const out = rows.map((r) => decodeEvent(threadId, r.branch_id, toEventRow(r)));
  checkContiguous(threadId, branchId, out, from, to);
  return out;
}

/** Events read as one packed text at most (see sqlite-state-read.ts's `PACKED_EVENTS`). */
const PACKED_EVENTS = 2048;

/** The segments cut into windows of at most {@link PACKED_EVENTS} seqs. */
function windowsOf(segments: readonly ReadSegment[]): ReadSegment[] {
  const out: ReadSegment[] = [];
  for (const seg of segments) {
    for (let lo = seg.after; lo < seg.upto; lo += PACKED_EVENTS) {
      out.push({ branchId: seg.branchId, after: lo, upto: Math.min(seg.upto, lo + PACKED_EVENTS) });
    }
  }
  return out;
}

/**
 * The events of `windows`, in order, from one query that returns each window as one packed
 * text (stores/packed-events.ts: one `JSON.parse` per window instead of a row object and a
 * parse per event); `null` when a window's text does not check out or is too long to build
 * (the caller then reads the rows one by one, which names a damaged row).
 * @throws what the query throws, other than a text too long.
 */
async function readPacked(
  c: PgStore,
  threadId: string,
  windows: readonly ReadSegment[],
): Promise<StoredEvent[] | null> {
  let rows: { n: number; text: string | null }[];
  try {
    rows = (
      await c.pool.query<{ n: number; text: string | null }>(
        `SELECT count(e.seq)::int AS n,
           '[' || string_agg(${PACKED_ROW}, ',' ORDER BY e.seq) || ']' AS text
         FROM unnest($2::text[], $3::int[], $4::int[]) WITH ORDINALITY AS s(branch_id, lo, hi, ord)
         LEFT JOIN ${c.t.events} e
           ON e.thread_id = $1 AND e.branch_id = s.branch_id AND e.seq > s.lo AND e.seq <= s.hi
         GROUP BY s.ord ORDER BY s.ord`,
        [
          threadId,
          windows.map((w) => w.branchId),
          windows.map((w) => w.after),
          windows.map((w) => w.upto),
        ],
      )
    ).rows;
  } catch (e) {
    if (tooLong(e)) return null;
    throw e;
  }
  if (rows.length !== windows.length) return null;
  const out: StoredEvent[] = [];
  for (let i = 0; i < windows.length; i++) {
    const w = windows[i]!;
    const events = unpackEvents(threadId, w.branchId, rows[i]!.text, w.after, rows[i]!.n);
    if (events === null) return null;
    for (let j = 0; j < events.length; j++) out.push(events[j]!);
  }
  return out;
}

/**
 * One event row as a JSON array (see stores/packed-events.ts): its columns quoted as JSON
 * (`to_json` of text; `null` for a NULL), then its data as stored.
 */
const PACKED_ROW = `'[' || e.seq || ',' || to_json(e.type)::text || ',' || to_json(e.run_id)::text || ','
  || coalesce(e.step::text, 'null') || ',' || coalesce(to_json(e.task_id)::text, 'null') || ','
  || coalesce(to_json(e.node)::text, 'null') || ',' || e.created_at || ',' || e.data || ']'`;

/** Whether `e` says a text was too long to build (PostgreSQL's limits, or a V8 string's). */
function tooLong(e: unknown): boolean {
  if (e instanceof RangeError) return true;
  const code = String((e as { code?: unknown }).code ?? "");
  return code.startsWith("54") || code === "53200";
}

/** The branch, or `null`. */
export async function getPostgresBranch(
  c: PgStore,
  threadId: string,
  branchId: string,
): Promise<BranchInfo | null> {
  const b = await branchRow(c, threadId, branchId);
  if (!b) return null;
  return {
    threadId,
    branchId,
    parent: b.parent_branch === null ? null : { branchId: b.parent_branch, seq: b.parent_seq ?? 0 },
    lastSeq: b.last_seq,
  };
}

/** One event by its parsed id, or `null`. @throws StateStoreError for a damaged row. */
export async function getPostgresEvent(
  c: PgStore,
  p: { threadId: string; branchId: string; seq: number },
): Promise<StoredEvent | null> {
  const res = await c.pool.query<DbEventRow>(
    `SELECT ${EVENT_COLUMNS} FROM ${c.t.events} e WHERE e.thread_id = $1 AND e.branch_id = $2 AND e.seq = $3`,
    [p.threadId, p.branchId, p.seq],
  );
  const row = res.rows[0];
  return row ? decodeEvent(p.threadId, p.branchId, toEventRow(row)) : null;
}

/** Threads with their branch ids, most recently updated first; the page `limit`/`offset` asks for (all when `limit` is infinite and `offset` 0). */
export async function listPostgresThreads(
  c: PgStore,
  limit: number,
  offset: number,
): Promise<ThreadInfo[]> {
  const t = c.t;
  const paged = limit !== Number.POSITIVE_INFINITY || offset !== 0;
  const res = await c.pool.query<{
    thread_id: string;
    branch_id: string;
    updated_at: number;
  }>(
    paged
      ? `WITH page AS (
           SELECT thread_id, max(updated_at) AS u FROM ${t.branches} GROUP BY thread_id
           ORDER BY u DESC, thread_id COLLATE "C" LIMIT $1 OFFSET $2
         )
         SELECT b.thread_id, b.branch_id, b.updated_at::float8 AS updated_at
         FROM ${t.branches} b JOIN page p USING (thread_id) ORDER BY b.ord`
      : `SELECT thread_id, branch_id, updated_at::float8 AS updated_at FROM ${t.branches} ORDER BY ord`,
    paged ? [limit === Number.POSITIVE_INFINITY ? null : limit, offset] : [],
  );
  const threads = new Map<string, ThreadInfo>();
  for (const row of res.rows) {
    let info = threads.get(row.thread_id);
    if (!info) {
      info = { threadId: row.thread_id, branches: [], updatedAt: 0 };
      threads.set(row.thread_id, info);
    }
    info.branches.push(row.branch_id);
    info.updatedAt = Math.max(info.updatedAt, row.updated_at);
  }
  return [...threads.values()].sort(byUpdatedAt);
}

/** Logical bytes stored: the branches' and snapshots' byte counts. */
export async function postgresSizeBytes(c: PgStore): Promise<number> {
  const t = c.t;
  const res = await c.pool.query<{ n: number }>(
    `SELECT ((SELECT coalesce(sum(bytes), 0) FROM ${t.branches})
           + (SELECT coalesce(sum(bytes), 0) FROM ${t.snapshots}))::float8 AS n`,
  );
  return res.rows[0]!.n;
}
