/**
 * The SQLite state store's statements (each prepared on its first use, once per connection)
 * and its row types, with their conversions to the store's `EventRow` and `BranchInfo`.
 *
 * @module
 */
import type Database from "better-sqlite3";
import type { EventRow } from "../../stores/internal.js";
import type { BranchInfo } from "../../stores/types.js";

export interface BranchRow {
  parent_branch: string | null;
  parent_seq: number | null;
  last_seq: number;
}

export interface LeaseRow {
  owner: string;
  expires_at: number;
  host: string | null;
  pid: number | null;
  started: string | null;
}

export interface DbEventRow {
  seq: number;
  type: string;
  run_id: string;
  step: number | null;
  task_id: string | null;
  node: string | null;
  data: string;
  created_at: number;
}

const EVENT_COLUMNS = "seq, type, run_id, step, task_id, node, data, created_at";

/**
 * A column of the last event of the `branches` row `b` (NULL when it has none): one seek in
 * `events`' key. A branch's last seq, update time and logical bytes are its last event's
 * (`seq`, `created_at`, `total_bytes`), so an append writes no `branches` row.
 */
export function lastEventOf(column: "seq" | "created_at" | "total_bytes"): string {
  return `(SELECT e.${column} FROM events e WHERE e.thread_id = b.thread_id AND e.branch_id = b.branch_id ORDER BY e.seq DESC LIMIT 1)`;
}

/** The last seq of the `branches` row `b`: its last event's, or the one it was made with. */
export const BRANCH_LAST_SEQ = `coalesce(${lastEventOf("seq")}, b.last_seq)`;

/** The update time of the `branches` row `b`: its last event's, or the one it was made with. */
const BRANCH_UPDATED_AT = `coalesce(${lastEventOf("created_at")}, b.updated_at)`;

/**
 * One event row as a JSON array, for `readPacked` (see stores/packed-events.ts): its columns
 * quoted as JSON by one `json_array` (its closing bracket cut: the last column is the number
 * `created_at`), then its data as stored. (One function call per row, where quoting each
 * column and concatenating the pieces took about twice as long over a 2,000-event tail.)
 */
const PACKED_ROW =
  "rtrim(json_array(seq, type, run_id, step, task_id, node, created_at), ']') || ',' || data || ']'";

/** The store's prepared statements, by name. */
export type SqliteStatements = Record<SqliteStatementName, Database.Statement>;

/** The names of {@link SqliteStatements}. */
type SqliteStatementName =
  | "getBranch"
  | "insertBranch"
  | "insertBranchIfNew"
  | "lastEvent"
  | "dataVersion"
  | "insertEvent"
  | "readRange"
  | "readPacked"
  | "getEvent"
  | "eventExists"
  | "saveSnapshot"
  | "loadSnapshot"
  | "getLease"
  | "takeLease"
  | "putLease"
  | "threadBranches"
  | "deleteEvents"
  | "deleteBranches"
  | "deleteSnapshots"
  | "listPage"
  | "renewLease"
  | "releaseLease"
  | "requestStop"
  | "stopRequested"
  | "listBranches"
  | "sizeBytes";

/**
 * How each statement is made on a connection (its SQL, and its raw or pluck mode); see
 * {@link prepare}.
 */
const MAKE: Record<SqliteStatementName, (db: Database.Database) => Database.Statement> = {
  getBranch: (db) =>
    db.prepare(
      `SELECT parent_branch, parent_seq, ${BRANCH_LAST_SEQ} AS last_seq FROM branches b WHERE thread_id = ? AND branch_id = ?`,
    ),
  insertBranch: (db) =>
    db.prepare(
      "INSERT INTO branches (thread_id, branch_id, parent_branch, parent_seq, last_seq, updated_at) VALUES (?, ?, NULL, NULL, 0, ?)",
    ),
  insertBranchIfNew: (db) =>
    db.prepare(
      "INSERT INTO branches (thread_id, branch_id, parent_branch, parent_seq, last_seq) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
    ),
  // In raw mode: [seq, total_bytes] of the branch's last event (one seek; none when the
  // branch has no events of its own, or does not exist).
  lastEvent: (db) =>
    db
      .prepare(
        "SELECT seq, total_bytes FROM events WHERE thread_id = ? AND branch_id = ? ORDER BY seq DESC LIMIT 1",
      )
      .raw(true),
  // Changes when another connection committed since this one last asked (not for its own).
  dataVersion: (db) => db.prepare("PRAGMA data_version").pluck(),
  insertEvent: (db) =>
    db.prepare(
      `INSERT INTO events (thread_id, branch_id, ${EVENT_COLUMNS}, total_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
  readRange: (db) =>
    db.prepare(
      `SELECT ${EVENT_COLUMNS} FROM events WHERE thread_id = ? AND branch_id = ? AND seq > ? AND seq <= ? ORDER BY seq`,
    ),
  readPacked: (db) =>
    db.prepare(
      // The rows in the primary key's order, as the range scan visits them (no sort: the text
      // is checked to hold the seqs in order, and read row by row if it does not).
      `SELECT count(*) AS n, '[' || group_concat(${PACKED_ROW}, ',') || ']' AS text
       FROM events WHERE thread_id = ? AND branch_id = ? AND seq > ? AND seq <= ?`,
    ),
  getEvent: (db) =>
    db.prepare(
      `SELECT ${EVENT_COLUMNS} FROM events WHERE thread_id = ? AND branch_id = ? AND seq = ?`,
    ),
  eventExists: (db) =>
    db.prepare("SELECT 1 AS x FROM events WHERE thread_id = ? AND branch_id = ? AND seq = ?"),
  saveSnapshot: (db) =>
    db.prepare(
      `INSERT INTO snapshots (thread_id, branch_id, seq, data, bytes)
       SELECT ?, ?, ?, ?, ? FROM branches b WHERE thread_id = ? AND branch_id = ? AND ${BRANCH_LAST_SEQ} >= ?
       ON CONFLICT (thread_id, branch_id) DO UPDATE SET seq = excluded.seq, data = excluded.data, bytes = excluded.bytes`,
    ),
  loadSnapshot: (db) =>
    db.prepare("SELECT seq, data FROM snapshots WHERE thread_id = ? AND branch_id = ?"),
  getLease: (db) =>
    db.prepare(
      "SELECT owner, expires_at, host, pid, started FROM leases WHERE thread_id = ? AND branch_id = ?",
    ),
  takeLease: (db) =>
    db.prepare(
      `INSERT INTO leases (thread_id, branch_id, owner, expires_at, host, pid, started) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (thread_id, branch_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at,
         host = excluded.host, pid = excluded.pid, started = excluded.started,
         stop_by = CASE WHEN leases.owner = excluded.owner THEN leases.stop_by ELSE NULL END
       WHERE leases.owner = excluded.owner OR leases.expires_at <= ?`,
    ),
  putLease: (db) =>
    db.prepare(
      `INSERT INTO leases (thread_id, branch_id, owner, expires_at, host, pid, started) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (thread_id, branch_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at,
         host = excluded.host, pid = excluded.pid, started = excluded.started,
         stop_by = CASE WHEN leases.owner = excluded.owner THEN leases.stop_by ELSE NULL END`,
    ),
  threadBranches: (db) =>
    db.prepare(
      "SELECT thread_id, branch_id FROM branches WHERE thread_id = ? OR (? = 1 AND substr(thread_id, 1, ?) = ?) ORDER BY thread_id, rowid",
    ),
  deleteEvents: (db) =>
    db.prepare("DELETE FROM events WHERE thread_id = ? OR (? = 1 AND substr(thread_id, 1, ?) = ?)"),
  deleteBranches: (db) =>
    db.prepare(
      "DELETE FROM branches WHERE thread_id = ? OR (? = 1 AND substr(thread_id, 1, ?) = ?)",
    ),
  deleteSnapshots: (db) =>
    db.prepare(
      "DELETE FROM snapshots WHERE thread_id = ? OR (? = 1 AND substr(thread_id, 1, ?) = ?)",
    ),
  listPage: (db) =>
    db.prepare(
      `SELECT thread_id, max(${BRANCH_UPDATED_AT}) AS updated_at FROM branches b GROUP BY thread_id
       ORDER BY updated_at DESC, thread_id LIMIT ? OFFSET ?`,
    ),
  renewLease: (db) =>
    db.prepare(
      "UPDATE leases SET expires_at = ? WHERE thread_id = ? AND branch_id = ? AND owner = ?",
    ),
  releaseLease: (db) =>
    db.prepare("DELETE FROM leases WHERE thread_id = ? AND branch_id = ? AND owner = ?"),
  requestStop: (db) =>
    db.prepare(
      "UPDATE leases SET stop_by = ? WHERE thread_id = ? AND branch_id = ? AND expires_at > ? RETURNING owner",
    ),
  stopRequested: (db) =>
    db.prepare("SELECT stop_by FROM leases WHERE thread_id = ? AND branch_id = ? AND owner = ?"),
  listBranches: (db) =>
    db.prepare(
      `SELECT thread_id, branch_id, ${BRANCH_UPDATED_AT} AS updated_at FROM branches b ORDER BY rowid`,
    ),
  sizeBytes: (db) =>
    db.prepare(
      `SELECT (SELECT coalesce(sum(${lastEventOf("total_bytes")}), 0) FROM branches b) + (SELECT coalesce(sum(bytes), 0) FROM snapshots) AS n`,
    ),
};

/** How many statements {@link MAKE} makes. */
const STATEMENTS = Object.keys(MAKE).length;

/** Where a {@link LazyStatements} keeps its connection and the statements it made. */
const DB: unique symbol = Symbol("db");
const MADE: unique symbol = Symbol("made");

/** The statements of one connection, each prepared on its first use (see {@link prepare}). */
class LazyStatements {
  readonly [DB]: Database.Database;
  /** By the statement's place in {@link MAKE}; `undefined` until first used. */
  readonly [MADE]: (Database.Statement | undefined)[] = new Array(STATEMENTS).fill(undefined);
  constructor(db: Database.Database) {
    this[DB] = db;
  }
}
for (const [i, [name, make]] of Object.entries(MAKE).entries()) {
  Object.defineProperty(LazyStatements.prototype, name, {
    get(this: LazyStatements): Database.Statement {
      const made = this[MADE];
      const s = made[i];
      if (s !== undefined) return s;
      made[i] = make(this[DB]);
      return made[i];
    },
  });
}

/**
 * The store's statements on `db`, each prepared on its first use and kept: opening a store
 * prepares none of them (a process that only reads a thread uses 3 of the 26; preparing
 * them all was about a third of a cold load's `new SqliteStateStore`). A statement that does
 * not prepare (a file whose tables lack a column) fails the call that first uses it, as a
 * `StateStoreError` naming the SQLite error.
 */
export function prepare(db: Database.Database): SqliteStatements {
  return new LazyStatements(db) as unknown as SqliteStatements;
}

export function toBranchInfo(threadId: string, branchId: string, row: BranchRow): BranchInfo {
  return {
    threadId,
    branchId,
    parent:
      row.parent_branch === null ? null : { branchId: row.parent_branch, seq: row.parent_seq ?? 0 },
    lastSeq: row.last_seq,
  };
}

/** A row of `readRange` in raw mode: the columns of EVENT_COLUMNS, in order (fewer objects than named rows). */
export type RawEventRow = [
  number,
  string,
  string,
  number | null,
  string | null,
  string | null,
  string,
  number,
];

/** The {@link EventRow} of a raw `readRange` row. */
export function fromRawRow(r: RawEventRow): EventRow {
  return {
    seq: r[0],
    type: r[1],
    runId: r[2],
    step: r[3],
    taskId: r[4],
    node: r[5],
    data: r[6],
    createdAt: r[7],
  };
}

export function toEventRow(r: DbEventRow): EventRow {
  return {
    seq: r.seq,
    type: r.type,
    runId: r.run_id,
    step: r.step,
    taskId: r.task_id,
    node: r.node,
    data: r.data,
    createdAt: r.created_at,
  };
}
