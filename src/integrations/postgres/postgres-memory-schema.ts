/**
 * The tables of `PostgresMemoryStore`: creating and checking them, and choosing the vector
 * mode (pgvector's HNSW index or exact float32 blobs).
 *
 * @module
 */
import { MemoryStoreError } from "../../errors/index.js";

/**
 * A connection as the memory store's helpers use it: the part of pg's `PoolClient` they call,
 * typed by row, so that the package's types need no `@types/pg`.
 */
export interface RowClient {
  query<R = Record<string, unknown>>(
    text: string,
    values?: unknown[],
  ): Promise<{ rows: R[]; rowCount: number | null }>;
}

/** Version of the memory tables this code reads and writes; kept in `<prefix>meta`. */
export const POSTGRES_MEMORY_SCHEMA_VERSION = 1;
/** Most dimensions of a vector: what pgvector's HNSW index takes for the `vector` type. */
export const POSTGRES_MAX_DIMENSIONS = 2000;
const FORMAT = "nodestep-memory-store";

/**
 * How `PostgresMemoryStore` searches vectors: `"pgvector"` (a `vector` column with an HNSW
 * index) or `"exact"` (float32 `bytea` blobs, every vector under the prefix compared in this
 * process); `"auto"` picks the tables' mode, else pgvector when the server has it, else exact.
 */
export type PostgresVectorIndex = "auto" | "pgvector" | "exact";

/** The store's schema and quoted table names. */
export interface MemoryTables {
  schema: string;
  items: string;
  meta: string;
  prefix: string;
}

/** pgvector's SQL in the schema it was installed in: the type, the cosine operator, and whether iterative index scans exist (0.8+). */
export interface VectorSql {
  type: string;
  op: string;
  iterative: boolean;
}

/**
 * Create the tables (and with `dims`, the vector column and index) when missing, or check
 * them, inside the caller's transaction; returns the vector mode and, for pgvector, its SQL.
 * @throws MemoryStoreError for tables of another format, version, dimensions or mode, or a
 *   server without pgvector when it is needed.
 */
export async function setUpMemoryTables(
  client: RowClient,
  t: MemoryTables,
  dims: number | null,
  want: PostgresVectorIndex,
): Promise<{ mode: "pgvector" | "exact" | null; vec: VectorSql | null }> {
  const { items, meta } = t;
  await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [
    `nodestep.memory-store:${t.schema}`,
  ]);
  await client.query(`CREATE SCHEMA IF NOT EXISTS "${t.schema}"`);
  await client.query(
    `CREATE TABLE IF NOT EXISTS ${meta} (key text PRIMARY KEY, value text NOT NULL)`,
  );
  await client.query(`CREATE TABLE IF NOT EXISTS ${items} (
  ns text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  value text NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  expires_at bigint,
  text_hash text,
  PRIMARY KEY (ns, key)
)`);
  const m = new Map(
    (await client.query<{ key: string; value: string }>(`SELECT key, value FROM ${meta}`)).rows.map(
      (r) => [r.key, r.value],
    ),
  );
  if (m.size === 0) {
    await client.query(
      `INSERT INTO ${meta} (key, value) VALUES ('format', $1), ('schema_version', $2)`,
      [FORMAT, String(POSTGRES_MEMORY_SCHEMA_VERSION)],
    );
  } else if (m.get("format") !== FORMAT) {
    throw new MemoryStoreError(
      `Table ${meta} is not a nodestep memory store's; pick another tablePrefix`,
    );
  } else if (m.get("schema_version") !== String(POSTGRES_MEMORY_SCHEMA_VERSION)) {
    throw new MemoryStoreError(
      `The memory tables ${items} were written with schema version ${m.get("schema_version")}; this nodestep reads version ${POSTGRES_MEMORY_SCHEMA_VERSION}`,
    );
  }
  if (dims === null) return { mode: null, vec: null };
  return setUpVectors(client, t, dims, m.get("dimensions"), want);
}

async function setUpVectors(
  client: RowClient,
  t: MemoryTables,
  dims: number,
  had: string | undefined,
  want: PostgresVectorIndex,
): Promise<{ mode: "pgvector" | "exact"; vec: VectorSql | null }> {
  if (had !== undefined && had !== String(dims)) {
    throw new MemoryStoreError(
      `The memory tables ${t.items} hold vectors of ${had} dimensions; this store's index.dimensions is ${dims}. Use the same embeddings, or another tablePrefix`,
    );
  }
  const mode = await chooseMode(client, t, had !== undefined, want);
  let vec: VectorSql | null = null;
  if (mode === "exact") {
    await client.query(`ALTER TABLE ${t.items} ADD COLUMN IF NOT EXISTS embedding_f32 bytea`);
  } else vec = await setUpPgvector(client, t, dims);
  if (had === undefined) {
    await client.query(
      `INSERT INTO ${t.meta} (key, value) VALUES ('dimensions', $1), ('vector_index', $2)`,
      [String(dims), mode],
    );
  }
  return { mode, vec };
}

/** The mode: the tables' (refusing another asked for), else pgvector when the server has it. */
async function chooseMode(
  client: RowClient,
  t: MemoryTables,
  hadVectors: boolean,
  want: PostgresVectorIndex,
): Promise<"pgvector" | "exact"> {
  const row = hadVectors
    ? await client.query<{ value: string }>(
        `SELECT value FROM ${t.meta} WHERE key = 'vector_index'`,
      )
    : null;
  const tables = row ? ((row.rows[0]?.value ?? "pgvector") as "pgvector" | "exact") : null;
  const asked = tables ?? want;
  const available =
    asked === "exact"
      ? false
      : (await client.query("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'"))
          .rowCount === 1;
  return chooseVectorMode(want, tables, available, t.items);
}

async function setUpPgvector(client: RowClient, t: MemoryTables, dims: number): Promise<VectorSql> {
  await client.query("SELECT pg_advisory_xact_lock(hashtextextended('nodestep.pgvector', 0))");
  await client.query("CREATE EXTENSION IF NOT EXISTS vector");
  const ext = (
    await client.query<{ nspname: string; extversion: string }>(
      "SELECT n.nspname, e.extversion FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'",
    )
  ).rows[0] as { nspname: string; extversion: string };
  const [major = 0, minor = 0] = ext.extversion.split(".").map(Number);
  const vec = {
    type: `"${ext.nspname}".vector`,
    op: `OPERATOR("${ext.nspname}".<=>)`,
    iterative: major > 0 || minor >= 8,
  };
  await client.query(
    `ALTER TABLE ${t.items} ADD COLUMN IF NOT EXISTS embedding ${vec.type}(${dims})`,
  );
  await client.query(
    `CREATE INDEX IF NOT EXISTS "${t.prefix}items_embedding" ON ${t.items} USING hnsw (embedding "${ext.nspname}".vector_cosine_ops)`,
  );
  return vec;
}

/**
 * The vector mode a store opens in: the tables' mode when they have one (refusing another
 * `want` than `"auto"`), else `"exact"` when asked, else `"pgvector"` when the server has the
 * extension, else `"exact"` for `"auto"`.
 * @param want - the store's `vectorIndex`.
 * @param tables - the mode the tables were made with, or `null` for new tables.
 * @param available - whether the server has pgvector (`pg_available_extensions`).
 * @param items - the items table's name, for the error message.
 * @throws MemoryStoreError when `want` differs from the tables' mode, or is `"pgvector"` and
 *   the server lacks it ({@link PGVECTOR_MISSING_MESSAGE}).
 */
export function chooseVectorMode(
  want: PostgresVectorIndex,
  tables: "pgvector" | "exact" | null,
  available: boolean,
  items: string,
): "pgvector" | "exact" {
  if (tables && want !== "auto" && want !== tables) {
    throw new MemoryStoreError(
      `The memory tables ${items} keep vectors for vectorIndex "${tables}"; this store asks for "${want}". Use "${tables}" or "auto", or another tablePrefix`,
    );
  }
  const asked = tables ?? want;
  if (asked === "exact") return "exact";
  if (available) return "pgvector";
  if (asked === "auto") return "exact";
  throw new MemoryStoreError(PGVECTOR_MISSING_MESSAGE);
}

/** The one line `vectorIndex: "pgvector"` throws (a {@link MemoryStoreError}) when the server has no pgvector. */
export const PGVECTOR_MISSING_MESSAGE = `PostgresMemoryStore: vectorIndex "pgvector" needs the pgvector extension, which the PostgreSQL server does not have (Debian 12 has no package for it): build and install pgvector (https://github.com/pgvector/pgvector) or use a PostgreSQL image with it (pgvector/pgvector), or use vectorIndex "auto" or "exact"`;
