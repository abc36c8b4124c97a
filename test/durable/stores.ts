/**
 * The store matrix of the durable-thread tests: every test of a `describeStores` block runs on
 * a `MemoryStateStore`, a `SqliteStateStore` (a file in a temp directory) and a
 * `PostgresStateStore` (its own schema, under a random prefix per test file). Stores are
 * closed after each test; the temp directory and the schemas are removed after the file.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, afterEach, describe } from "vitest";
import { PostgresStateStore } from "../../src/integrations/postgres/index.js";
import { SqliteStateStore } from "../../src/integrations/sqlite/index.js";
import { MemoryStateStore } from "../../src/stores/index.js";
import type { StateStore } from "../../src/stores/types.js";

export const PG_URL = "postgres://postgres@127.0.0.1:5432/test";

export type StoreKind = "memory" | "sqlite" | "postgres";

/** What a test of the matrix gets. */
export interface StoreFixture {
  kind: StoreKind;
  /** A new, empty store (closed after the test). */
  open(): Promise<StateStore>;
  /**
   * A second handle on the same data, as another process would open it: the same instance
   * for memory, a new connection to the file or schema otherwise (closed after the test).
   */
  reopen(store: StateStore): Promise<StateStore>;
}

/** A random name prefix for this test file's schemas and files. */
export const filePrefix = `nodestep_durable_${randomBytes(4).toString("hex")}`;

let tmp: string | null = null;
/** This file's temp directory (created on first use, removed after the file). */
export function tempDir(): string {
  if (tmp === null) tmp = mkdtempSync(join(tmpdir(), `${filePrefix}-`));
  return tmp;
}

let counter = 0;
const opened: StateStore[] = [];
const schemas = new Set<string>();

/** A fresh PostgreSQL schema name of this file (dropped after the file). */
export function newSchema(): string {
  const s = `${filePrefix}_${++counter}`;
  schemas.add(s);
  return s;
}

/** A fresh SQLite file path of this file (removed after the file). */
export function newSqlitePath(): string {
  return join(tempDir(), `s${++counter}.db`);
}

function track<T extends StateStore>(store: T): T {
  opened.push(store);
  return store;
}

const fixtures: Record<StoreKind, StoreFixture> = {
  memory: {
    kind: "memory",
    open: async () => track(new MemoryStateStore()),
    reopen: async (store) => store,
  },
  sqlite: {
    kind: "sqlite",
    open: async () => track(new SqliteStateStore({ path: newSqlitePath() })),
    reopen: async (store) =>
      track(new SqliteStateStore({ path: (store as SqliteStateStore).path })),
  },
  postgres: {
    kind: "postgres",
    open: async () =>
      track(new PostgresStateStore({ connectionString: PG_URL, schema: newSchema() })),
    reopen: async (store) =>
      track(
        new PostgresStateStore({
          connectionString: PG_URL,
          schema: (store as PostgresStateStore).schema,
        }),
      ),
  },
};

afterEach(async () => {
  const all = opened.splice(0);
  for (const s of all.reverse()) await s.close().catch(() => {});
});

afterAll(async () => {
  if (schemas.size > 0) {
    const admin = new pg.Pool({ connectionString: PG_URL, max: 1 });
    try {
      for (const s of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
    } finally {
      await admin.end();
    }
  }
  if (tmp !== null) rmSync(tmp, { recursive: true, force: true });
});

/**
 * Run `body` once per store kind (or the kinds given), in a `describe` named after it. In a
 * cold project (`NODESTEP_COLD_STORE` set, see test/setup/cold-mode.ts) only that kind runs,
 * when it is one of them: each cold project covers one store.
 */
export function describeStores(
  title: string,
  body: (fx: StoreFixture) => void,
  kinds: readonly StoreKind[] = ["memory", "sqlite", "postgres"],
): void {
  const cold = process.env.NODESTEP_COLD_STORE as StoreKind | undefined;
  const run = cold === undefined ? kinds : kinds.filter((k) => k === cold);
  for (const kind of run) describe(`${title} [${kind}]`, () => body(fixtures[kind]));
}
