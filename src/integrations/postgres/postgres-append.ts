/**
 * The PostgreSQL state store's append path: one statement (named, prepared) that extends the
 * lease (for `appendLeased`), advances the branch when it is at the expected seq, and inserts
 * the events.
 *
 * @module
 */
import {
  concurrentWrite,
  type EncodedEvent,
  encodedAsStored,
  eventRowBytes,
  MAIN_BRANCH,
  unknownBranch,
} from "../../stores/internal.js";
import type { LeasedAppend, StoredEvent } from "../../stores/types.js";
import {
  branchRow,
  NOW_MS,
  type PgStore,
  type PgTables,
  statementName,
} from "./postgres-state-sql.js";

/**
 * Append the `encoded` events after `expectedLastSeq` (as `lease`'s holder when given).
 * @throws ConcurrentWriteError; UnknownBranchError for an unknown branch other than "main";
 *   the database's errors.
 */
export async function appendPostgres(
  c: PgStore,
  threadId: string,
  branchId: string,
  encoded: EncodedEvent[],
  expectedLastSeq: number,
  lease: { owner: string; ttlMs: number } | null,
): Promise<LeasedAppend> {
  if (encoded.length === 0) {
    let stopBy: string | null = null;
    if (lease) {
      const renewed = await c.pool.query<{ stop_by: string | null }>(
        `UPDATE ${c.t.leases} SET expires_at = ${NOW_MS} + $4::bigint
           WHERE thread_id = $1 AND branch_id = $2 AND owner = $3 RETURNING stop_by`,
        [threadId, branchId, lease.owner, Math.ceil(lease.ttlMs)],
      );
      if (renewed.rowCount !== 1) return { events: [], held: false, stopBy: null };
      stopBy = renewed.rows[0]!.stop_by;
    }
    const b = await branchRow(c, threadId, branchId);
    if (!b) {
      if (branchId !== MAIN_BRANCH) throw unknownBranch(threadId, branchId);
      if (expectedLastSeq !== 0) throw concurrentWrite(threadId, branchId, expectedLastSeq, 0);
    } else if (b.last_seq !== expectedLastSeq) {
      throw concurrentWrite(threadId, branchId, expectedLastSeq, b.last_seq);
    }
    return { events: [], held: true, stopBy };
  }
  const createdAt = Date.now();
  let bytes = 0;
  for (const e of encoded) bytes += eventRowBytes(threadId, branchId, e);
  const first = branchId === MAIN_BRANCH && expectedLastSeq === 0;
  const values: unknown[] = [
    threadId,
    branchId,
    expectedLastSeq,
    expectedLastSeq + encoded.length,
    createdAt,
    bytes,
  ];
  if (encoded.length === 1) {
    const e = encoded[0]!;
    values.push(e.type, e.runId, e.step, e.taskId, e.node, e.data);
  } else {
    values.push(
      encoded.map((e) => e.type),
      encoded.map((e) => e.runId),
      encoded.map((e) => e.step),
      encoded.map((e) => e.taskId),
      encoded.map((e) => e.node),
      encoded.map((e) => e.data),
    );
  }
  if (lease) values.push(lease.owner, Math.ceil(lease.ttlMs));
  const st = appendStatement(c.t, first, encoded.length === 1, lease !== null);
  const res = await c.pool.query<{ n: number; held: boolean; stop_by: string | null }>({
    name: st.name,
    text: st.text,
    values,
  });
  const row = res.rows[0]!;
  if (lease && !row.held) return { events: [], held: false, stopBy: null };
  if (row.n !== encoded.length) {
    const b = await branchRow(c, threadId, branchId);
    if (!b && branchId !== MAIN_BRANCH) throw unknownBranch(threadId, branchId);
    throw concurrentWrite(threadId, branchId, expectedLastSeq, b?.last_seq ?? 0);
  }
  return {
    events: storedEvents(threadId, branchId, expectedLastSeq, encoded, createdAt),
    held: true,
    stopBy: lease ? row.stop_by : null,
  };
}

/** The appended events as stored (`encodedAsStored` each, from `after + 1` on). */
function storedEvents(
  threadId: string,
  branchId: string,
  after: number,
  encoded: EncodedEvent[],
  createdAt: number,
): StoredEvent[] {
  const out: StoredEvent[] = new Array(encoded.length);
  for (let i = 0; i < encoded.length; i++)
    out[i] = encodedAsStored(threadId, branchId, after + 1 + i, createdAt, encoded[i]!);
  return out;
}

/** The eight append statements of a store's tables (text and prepared name), made once each. */
const appendStatements = new WeakMap<PgTables, ({ name: string; text: string } | undefined)[]>();

/**
 * The append statement of this shape, its text built and its name hashed once per store (not
 * on every append: the text is some 1.5 kB).
 */
function appendStatement(
  t: PgTables,
  first: boolean,
  single: boolean,
  leased: boolean,
): { name: string; text: string } {
  let forTables = appendStatements.get(t);
  if (!forTables) {
    forTables = [];
    appendStatements.set(t, forTables);
  }
  const i = (first ? 4 : 0) + (single ? 2 : 0) + (leased ? 1 : 0);
  let st = forTables[i];
  if (!st) {
    const text = appendSql(t, first, single, leased);
    st = { name: statementName(text), text };
    forTables[i] = st;
  }
  return st;
}

/**
 * The append statement: (with a lease) extend the owner's lease row, advance the branch when
 * it is at the expected seq (and the lease was the owner's), insert the events; answers the
 * number inserted, whether the lease was held and its `stop_by`. Parameters: $1 thread, $2
 * branch, $3 expected seq, $4 new last seq, $5 created at, $6 bytes, $7–$12 the event
 * columns (scalars for one event, arrays for several), $13 owner, $14 ttl ms.
 */
function appendSql(t: PgTables, first: boolean, single: boolean, leased: boolean): string {
  const gate = leased ? " AND EXISTS (SELECT 1 FROM lease)" : "";
  const advance = first
    ? `INSERT INTO ${t.branches} AS b (thread_id, branch_id, parent_branch, parent_seq, last_seq, updated_at, bytes)
           SELECT $1::text, $2::text, NULL, NULL, $4::int, $5::bigint, $6::bigint WHERE true${gate}
           ON CONFLICT (thread_id, branch_id) DO UPDATE
             SET last_seq = EXCLUDED.last_seq, updated_at = EXCLUDED.updated_at, bytes = b.bytes + EXCLUDED.bytes
             WHERE b.last_seq = $3::int
           RETURNING 1`
    : `UPDATE ${t.branches} SET last_seq = $4::int, updated_at = $5::bigint, bytes = bytes + $6::bigint
           WHERE thread_id = $1::text AND branch_id = $2::text AND last_seq = $3::int${gate}
           RETURNING 1`;
  const insert = single
    ? `INSERT INTO ${t.events} (thread_id, branch_id, seq, type, run_id, step, task_id, node, data, created_at)
       SELECT $1::text, $2::text, $3::int + 1, $7::text, $8::text, $9::int, $10::text, $11::text, $12::text, $5::bigint
       WHERE EXISTS (SELECT 1 FROM advanced)
       RETURNING 1`
    : `INSERT INTO ${t.events} (thread_id, branch_id, seq, type, run_id, step, task_id, node, data, created_at)
       SELECT $1::text, $2::text, $3::int + u.ord, u.type, u.run_id, u.step, u.task_id, u.node, u.data, $5::bigint
       FROM unnest($7::text[], $8::text[], $9::int[], $10::text[], $11::text[], $12::text[])
         WITH ORDINALITY AS u(type, run_id, step, task_id, node, data, ord)
       WHERE EXISTS (SELECT 1 FROM advanced)
       RETURNING 1`;
  const lease = leased
    ? `lease AS (
         UPDATE ${t.leases} SET expires_at = ${NOW_MS} + $14::bigint
         WHERE thread_id = $1::text AND branch_id = $2::text AND owner = $13::text
         RETURNING stop_by
       ), `
    : "";
  return `WITH ${lease}advanced AS (${advance}), inserted AS (${insert})
     SELECT (SELECT count(*) FROM inserted)::int AS n, ${
       leased
         ? "EXISTS (SELECT 1 FROM lease) AS held, (SELECT stop_by FROM lease) AS stop_by"
         : "true AS held, NULL::text AS stop_by"
     }`;
}
