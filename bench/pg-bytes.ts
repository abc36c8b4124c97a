/**
 * The PostgreSQL size measure both sides use.
 *
 * @module
 */
import type pg from "pg";

/** `pg_total_relation_size` (heap, TOAST and indexes) of every table of a schema, in bytes. */
export async function schemaBytes(pool: pg.Pool, schema: string): Promise<number> {
  const res = await pool.query<{ n: number }>(
    `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::float8 AS n
       FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
      WHERE s.nspname = $1 AND c.relkind = 'r'`,
    [schema],
  );
  return res.rows[0]!.n;
}
