/**
 * The PostgreSQL state store's shared parts: what its helpers are given (`PgStore`), its row
 * types and conversions, the database clock, and the names of its prepared statements.
 *
 * @module
 */
import { createHash } from "node:crypto";
import type pg from "pg";
import type { EventRow } from "../../stores/internal.js";

/** The tables of a store's schema, quoted and schema-qualified. */
export type PgTables = { [K in "meta" | "branches" | "events" | "snapshots" | "leases"]: string };

/** What the store's helpers work on: its pool, its tables and its schema's name. */
export interface PgStore {
  readonly pool: pg.Pool;
  readonly t: PgTables;
  readonly schema: string;
}

/** Largest seq a PostgreSQL `integer` column holds. */
export const MAX_SEQ = 2_147_483_647;
/** The database's clock in ms since the epoch (leases use it, so machines agree). */
export const NOW_MS = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint";

export interface BranchRow {
  branch_id: string;
  parent_branch: string | null;
  parent_seq: number | null;
  last_seq: number;
}

export interface DbEventRow {
  branch_id: string;
  seq: number;
  type: string;
  run_id: string;
  step: number | null;
  task_id: string | null;
  node: string | null;
  data: string;
  created_at: number;
}

export const EVENT_COLUMNS =
  "e.branch_id, e.seq, e.type, e.run_id, e.step, e.task_id, e.node, e.data, e.created_at::float8 AS created_at";

/** The branch's row, or `undefined` when it does not exist. */
export async function branchRow(
  c: PgStore,
  threadId: string,
  branchId: string,
): Promise<BranchRow | undefined> {
  const res = await c.pool.query<BranchRow>(
    `SELECT branch_id, parent_branch, parent_seq, last_seq FROM ${c.t.branches} WHERE thread_id = $1 AND branch_id = $2`,
    [threadId, branchId],
  );
  return res.rows[0];
}

const statementNames = new Map<string, string>();

/**
 * The name a statement is prepared under on each connection (pg prepares a named statement
 * once per connection, then sends only its parameters): a hash of its text, so that stores
 * of different schemas sharing a pool never clash.
 */
export function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `nodestep_${createHash("sha256").update(text).digest("hex").slice(0, 24)}`;
    statementNames.set(text, name);
  }
  return name;
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
