/**
 * The PostgreSQL state store's schema: its version, and setting it up (creating the tables
 * when missing, or checking the version of the ones there).
 *
 * @module
 */
import type pg from "pg";
import { StateStoreError } from "../../errors/index.js";
import type { PgStore } from "./postgres-state-sql.js";

import { POSTGRES_SCHEMA_VERSION } from "./postgres-version.js";

export { POSTGRES_SCHEMA_VERSION };

const FORMAT = "nodestep-state-store";
export const TABLES = ["meta", "branches", "events", "snapshots", "leases"];

/**
 * Create the schema and tables when missing, or check their version.
 * @throws StateStoreError when the server cannot be reached, the schema holds tables that are
 *   not a nodestep store, or they were written with another schema version.
 */
export async function setUpPostgresSchema(c: PgStore): Promise<void> {
  const t = c.t;
  let client: pg.PoolClient;
  try {
    client = await c.pool.connect();
  } catch (e) {
    throw new StateStoreError(
      `Cannot connect to PostgreSQL for the state store (schema "${c.schema}"): ${(e as Error).message}`,
      { cause: e },
    );
  }
  try {
    await client.query("BEGIN");
    // One process at a time sets up a schema; the others wait and then see it done.
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [
      `nodestep.state-store:${c.schema}`,
    ]);
    const present = (
      await client.query<{ table_name: string }>(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_name = ANY($2)",
        [c.schema, TABLES],
      )
    ).rows.map((r) => r.table_name);
    if (present.length === 0) {
      await client.query(`CREATE SCHEMA IF NOT EXISTS "${c.schema}"`);
      await client.query(`
        CREATE TABLE ${t.meta} (key text PRIMARY KEY, value text NOT NULL);
        CREATE TABLE ${t.branches} (
          thread_id text NOT NULL,
          branch_id text NOT NULL,
          parent_branch text,
          parent_seq integer,
          last_seq integer NOT NULL,
          updated_at bigint NOT NULL DEFAULT 0,
          bytes bigint NOT NULL DEFAULT 0,
          ord bigserial,
          PRIMARY KEY (thread_id, branch_id)
        );
        CREATE TABLE ${t.events} (
          thread_id text NOT NULL,
          branch_id text NOT NULL,
          seq integer NOT NULL,
          type text NOT NULL,
          run_id text NOT NULL,
          step integer,
          task_id text,
          node text,
          data text NOT NULL,
          created_at bigint NOT NULL,
          PRIMARY KEY (thread_id, branch_id, seq)
        );
        CREATE TABLE ${t.snapshots} (
          thread_id text NOT NULL,
          branch_id text NOT NULL,
          seq integer NOT NULL,
          data text NOT NULL,
          bytes bigint NOT NULL,
          PRIMARY KEY (thread_id, branch_id)
        );
        CREATE TABLE ${t.leases} (
          thread_id text NOT NULL,
          branch_id text NOT NULL,
          owner text NOT NULL,
          expires_at bigint NOT NULL,
          locked boolean NOT NULL DEFAULT false,
          stop_by text,
          PRIMARY KEY (thread_id, branch_id)
        );
      `);
      await client.query(
        `INSERT INTO ${t.meta} (key, value) VALUES ('format', $1), ('schema_version', $2)`,
        [FORMAT, String(POSTGRES_SCHEMA_VERSION)],
      );
    } else {
      checkPostgresSchema(
        c,
        present,
        present.includes("meta")
          ? new Map(
              (
                await client.query<{ key: string; value: string }>(
                  `SELECT key, value FROM ${t.meta}`,
                )
              ).rows.map((r) => [r.key, r.value]),
            )
          : null,
      );
      // Schemas made before leases were tied to a session get the column (readers that do
      // not know it ignore it).
      const hasLocked = await client.query(
        "SELECT 1 FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'leases' AND column_name = 'locked'",
        [c.schema],
      );
      if (hasLocked.rowCount === 0) {
        await client.query(
          `ALTER TABLE ${t.leases} ADD COLUMN locked boolean NOT NULL DEFAULT false`,
        );
      }
      // And before runs could be asked to stop (busy-thread policies): `stop_by`.
      await client.query(`ALTER TABLE ${t.leases} ADD COLUMN IF NOT EXISTS stop_by text`);
    }
    await client.query("COMMIT");
  } catch (e) {
    await client.query("ROLLBACK").catch(() => {});
    if (e instanceof StateStoreError) throw e;
    throw new StateStoreError(
      `Cannot set up the PostgreSQL state store in schema "${c.schema}": ${(e as Error).message}`,
      { cause: e },
    );
  } finally {
    client.release();
  }
}

/** Throw unless the tables `present` and the `meta` rows are this version's complete store. */
function checkPostgresSchema(
  c: PgStore,
  present: string[],
  meta: Map<string, string> | null,
): void {
  const where = `PostgreSQL schema "${c.schema}"`;
  if (!meta) {
    throw new StateStoreError(
      `${where} is not a nodestep state store: it has tables (${present.join(", ")}) but no meta table. Use another schema.`,
    );
  }
  if (meta.get("format") !== FORMAT) {
    throw new StateStoreError(
      `${where} is not a nodestep state store (its meta table says format ${JSON.stringify(meta.get("format") ?? null)}). Use another schema.`,
    );
  }
  const version = meta.get("schema_version");
  if (version !== String(POSTGRES_SCHEMA_VERSION)) {
    throw new StateStoreError(
      `${where} was written with state store schema version ${version ?? "(none)"}; this nodestep reads version ${POSTGRES_SCHEMA_VERSION}. Migrate the schema to version ${POSTGRES_SCHEMA_VERSION} (see docs/stores.md, "Schema versions"), or use the nodestep version that wrote it. Nothing was changed.`,
    );
  }
  const missing = TABLES.filter((n) => !present.includes(n));
  if (missing.length > 0) {
    throw new StateStoreError(
      `${where} is a damaged nodestep state store: table(s) ${missing.join(", ")} are missing. Restore it from a backup.`,
    );
  }
}
