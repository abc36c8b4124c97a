/**
 * The SQLite state store's reads: a branch's events through its parent chain (one deferred
 * transaction), one event by id, and the thread listing.
 *
 * @module
 */
import type Database from "better-sqlite3";
import { StateStoreError } from "../../errors/index.js";
import {
  byUpdatedAt,
  type ChainLink,
  checkContiguous,
  decodeEvent,
  MAIN_BRANCH,
  planRead,
  unknownBranch,
} from "../../stores/internal.js";
import type { StoredEvent, ThreadInfo } from "../../stores/types.js";
import {
  type BranchRow,
  type DbEventRow,
  fromRawRow,
  type RawEventRow,
  type SqliteStatements,
  toEventRow,
} from "./sqlite-state-sql.js";

/**
 * The read transaction of `db` (run `DEFERRED`, so one consistent state of the file): the
 * events of `branchId` after `afterSeq` up to `uptoSeq`, its parents' first.
 * @throws UnknownBranchError for an unknown branch other than "main"; StateStoreError for a
 *   damaged row or chain.
 */
export function readTransaction(
  db: Database.Database,
  s: SqliteStatements,
): (threadId: string, branchId: string, afterSeq: number, uptoSeq: number) => StoredEvent[] {
  return db
    .transaction(
      (threadId: string, branchId: string, afterSeq: number, uptoSeq: number): StoredEvent[] => {
        const chain = loadChain(s, threadId, branchId);
        if (!chain) {
          if (branchId === MAIN_BRANCH) return [];
          throw unknownBranch(threadId, branchId);
        }
        const { segments, from, to } = planRead(chain, afterSeq, uptoSeq);
        const out: StoredEvent[] = [];
        for (const seg of segments) {
          const rows = s.readRange.raw(true).all(threadId, seg.branchId, seg.after, seg.upto);
          for (const row of rows as RawEventRow[]) {
            out.push(decodeEvent(threadId, seg.branchId, fromRawRow(row)));
          }
        }
        checkContiguous(threadId, branchId, out, from, to);
        return out;
      },
    )
    .deferred.bind(null);
}

/** One event by its parsed id, or `null`. @throws StateStoreError for a damaged row. */
export function getSqliteEvent(
  s: SqliteStatements,
  p: { threadId: string; branchId: string; seq: number },
): StoredEvent | null {
  const row = s.getEvent.get(p.threadId, p.branchId, p.seq) as DbEventRow | undefined;
  return row ? decodeEvent(p.threadId, p.branchId, toEventRow(row)) : null;
}

/**
 * Threads with their branch ids, most recently updated first; the page `limit`/`offset` asks
 * for in one query, or all of them (`limit` infinite and `offset` 0).
 */
export function listSqliteThreads(
  s: SqliteStatements,
  limit: number,
  offset: number,
): ThreadInfo[] {
  if (limit !== Number.POSITIVE_INFINITY || offset !== 0) {
    const page = s.listPage.all(limit === Number.POSITIVE_INFINITY ? -1 : limit, offset) as {
      thread_id: string;
      updated_at: number;
    }[];
    return page.map((r) => ({
      threadId: r.thread_id,
      branches: (s.threadBranches.all(r.thread_id, 0, 0, "") as { branch_id: string }[]).map(
        (b) => b.branch_id,
      ),
      updatedAt: r.updated_at,
    }));
  }
  const threads = new Map<string, ThreadInfo>();
  for (const r of s.listBranches.iterate()) {
    const row = r as { thread_id: string; branch_id: string; updated_at: number };
    let t = threads.get(row.thread_id);
    if (!t) {
      t = { threadId: row.thread_id, branches: [], updatedAt: 0 };
      threads.set(row.thread_id, t);
    }
    t.branches.push(row.branch_id);
    t.updatedAt = Math.max(t.updatedAt, row.updated_at);
  }
  return [...threads.values()].sort(byUpdatedAt);
}

/** The branch and its parents, branch first; `null` when the branch does not exist. */
export function loadChain(
  s: SqliteStatements,
  threadId: string,
  branchId: string,
): ChainLink[] | null {
  const chain: ChainLink[] = [];
  let id: string | null = branchId;
  while (id !== null) {
    const row = s.getBranch.get(threadId, id) as BranchRow | undefined;
    if (!row) {
      if (chain.length === 0) return null;
      throw new StateStoreError(
        `Thread "${threadId}" branch "${branchId}" is damaged: its ancestor branch "${id}" is missing. Restore the store from a backup.`,
        { threadId, branchId },
      );
    }
    chain.push({
      branchId: id,
      parentBranch: row.parent_branch,
      parentSeq: row.parent_seq,
      lastSeq: row.last_seq,
    });
    if (chain.length > 10_000) {
      throw new StateStoreError(
        `Thread "${threadId}" has a cycle of branches; the store is damaged.`,
        {
          threadId,
          branchId,
        },
      );
    }
    id = row.parent_branch;
  }
  return chain;
}
