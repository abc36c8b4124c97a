/**
 * The stores of the cold test mode (see cold-mode.ts): which kind a `cold*` project runs on,
 * the stores that stand in for a test's `new MemoryStateStore()` on SQLite and PostgreSQL,
 * and a new instance over the same data of any store, for each graph call.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { PostgresStateStore } from "../../src/integrations/postgres/index.js";
import { SqliteStateStore } from "../../src/integrations/sqlite/index.js";
import type { StateStore } from "../../src/stores/types.js";

/** The test database (the same as test/durable/stores.ts's). */
export const COLD_PG_URL = "postgres://postgres@127.0.0.1:5432/test";

export type ColdStoreKind = "memory" | "sqlite" | "postgres";

/**
 * The kind the cold project runs on: `NODESTEP_COLD_STORE` (set by vitest.config.ts for the
 * `cold`, `cold-sqlite` and `cold-postgres` projects), `memory` when unset.
 * @throws Error for another value.
 */
export function coldStoreKind(): ColdStoreKind {
  const kind = process.env.NODESTEP_COLD_STORE ?? "memory";
  if (kind !== "memory" && kind !== "sqlite" && kind !== "postgres") {
    throw new Error(`NODESTEP_COLD_STORE must be memory, sqlite or postgres, got "${kind}"`);
  }
  return kind;
}

const prefix = `nodestep_cold_${randomBytes(4).toString("hex")}`;
let dir: string | null = null;
let counter = 0;
const made: StateStore[] = [];
const schemas: string[] = [];

/**
 * A new, empty store of the cold kind, for a test's `new MemoryStateStore()` on SQLite (a file
 * in a temp directory) or PostgreSQL (a schema of its own). Closed, and its file or schema
 * removed, by {@link cleanUpColdStores}.
 */
export function newBackingStore(kind: "sqlite" | "postgres"): StateStore {
  let store: StateStore;
  if (kind === "sqlite") {
    if (dir === null) dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
    store = new SqliteStateStore({ path: join(dir, `m${++counter}.db`) });
  } else {
    const schema = `${prefix}_${++counter}`;
    schemas.push(schema);
    store = new PostgresStateStore({ connectionString: COLD_PG_URL, schema });
  }
  made.push(store);
  return store;
}

/** What the cold mode counted: graph calls given a new graph and store, and calls whose store was kept. */
export const coldCounts = { calls: 0, storesOpened: 0, storesKept: 0 };

/** The methods of the `StateStore` contract a test may replace on an instance to watch it. */
const CONTRACT = [
  "append",
  "appendLeased",
  "read",
  "getBranch",
  "getEvent",
  "createBranch",
  "listThreads",
  "saveSnapshot",
  "loadSnapshot",
  "acquireLease",
  "renewLease",
  "leaseLost",
  "releaseLease",
  "deleteThread",
  "sizeBytes",
  "close",
] as const;

/**
 * A new instance over the same data as `store`, as another process would open it: a
 * `MemoryStateStore` view of the same data, the SQLite file opened again, a new pool on the
 * PostgreSQL schema. `null` (the call keeps `store`) for a store of another class (a subclass
 * included), or one whose methods a test replaced on the instance to watch or break it.
 */
export function reopenStore(
  store: StateStore,
  memoryView: (s: object) => StateStore | null,
): StateStore | null {
  if (CONTRACT.some((m) => Object.hasOwn(store, m))) return null;
  // A subclass (a test's store that fails on purpose, say) is not reopened as its base class.
  const proto = Object.getPrototypeOf(store);
  const view = memoryView(store);
  if (view) return Object.getPrototypeOf(view) === proto ? view : null;
  if (proto === SqliteStateStore.prototype && (store as SqliteStateStore).path !== ":memory:") {
    return new SqliteStateStore({ path: (store as SqliteStateStore).path });
  }
  if (proto === PostgresStateStore.prototype && store instanceof PostgresStateStore) {
    return new PostgresStateStore({ connectionString: COLD_PG_URL, schema: store.schema });
  }
  return null;
}

/** Close the stores made by {@link newBackingStore}, drop their schemas, remove their files. */
export async function cleanUpColdStores(): Promise<void> {
  for (const s of made.splice(0).reverse()) await s.close().catch(() => {});
  if (schemas.length > 0) {
    const admin = new pg.Pool({ connectionString: COLD_PG_URL, max: 1 });
    try {
      for (const s of schemas.splice(0)) await admin.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
    } finally {
      await admin.end();
    }
  }
  if (dir !== null) rmSync(dir, { recursive: true, force: true });
  dir = null;
}
