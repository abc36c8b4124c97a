/**
 * The SQLite state store's reads: a branch's events through its parent chain (one deferred
 * transaction) and one event by id. The thread listing is sqlite-state-list.ts.
 *
 * @module
 */
import type Database from "better-sqlite3";
import { StateStoreError } from "../../errors/index.js";
import {
  type ChainLink,
  checkContiguous,
  decodeEvent,
  MAIN_BRANCH,
  planRead,
  unknownBranch,
} from "../../stores/internal.js";
import { unpackEvents } from "../../stores/packed-events.js";
import type { StoredEvent } from "../../stores/types.js";
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
          for (let lo = seg.after; lo < seg.upto; lo += PACKED_EVENTS) {
            const hi = Math.min(seg.upto, lo + PACKED_EVENTS);
            readWindow(s, threadId, seg.branchId, lo, hi, out);
          }
        }
        checkContiguous(threadId, branchId, out, from, to);
        return out;
      },
    )
    .deferred.bind(null);
}

/**
 * Events read by one packed query at most (a window of seqs): bounds the one text the query
 * builds (events of 100 kB each make a 200 MB text; a text too long for SQLite or V8 fails the
 * packed read, and the window is read row by row).
 */
export const PACKED_EVENTS = 2048;

/**
 * Push the events of `branchId` with `lo < seq ≤ hi` onto `out`: one packed query parsed once
 * (stores/packed-events.ts), or, when its text does not check out or cannot be built, the
 * rows one by one (which raise the error naming a damaged row).
 */
function readWindow(
  s: SqliteStatements,
  threadId: string,
  branchId: string,
  lo: number,
  hi: number,
  out: StoredEvent[],
): void {
  let events: StoredEvent[] | null = null;
  try {
    const row = s.readPacked.get(threadId, branchId, lo, hi) as { n: number; text: string | null };
    events = unpackEvents(threadId, branchId, row.text, lo, row.n);
  } catch {
    // Too long a text (SQLITE_TOOBIG, or longer than a V8 string), or a database error,
    // which the row-by-row read below raises again.
  }
  if (events !== null) {
    for (let i = 0; i < events.length; i++) out.push(events[i]!);
    return;
  }
  const rows = s.readRange.raw(true).all(threadId, branchId, lo, hi) as RawEventRow[];
  for (const row of rows) out.push(decodeEvent(threadId, branchId, fromRawRow(row)));
}

/** One event by its parsed id, or `null`. @throws StateStoreError for a damaged row. */
export function getSqliteEvent(
  s: SqliteStatements,
  p: { threadId: string; branchId: string; seq: number },
): StoredEvent | null {
  const row = s.getEvent.get(p.threadId, p.branchId, p.seq) as DbEventRow | undefined;
  return row ? decodeEvent(p.threadId, p.branchId, toEventRow(row)) : null;
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
