/**
 * The bound of a lease's ttl, the same on every store: at most `MAX_LEASE_TTL_MS` (2^31 − 1
 * ms). Before, memory and SQLite granted a lease of 1e300 ms and PostgreSQL failed on it with
 * its own words ("invalid input syntax for type bigint").
 */
import { afterAll, describe, expect, it } from "vitest";
import { StateStoreError } from "../errors/index.js";
import { isolation, PG_URL } from "../integrations/bullmq/sse.fixture.js";
import { PostgresStateStore } from "../integrations/postgres/index.js";
import { SqliteStateStore } from "../integrations/sqlite/index.js";
import { MAX_LEASE_TTL_MS } from "./internal.js";
import { MemoryStateStore } from "./memory-state-store.js";
import type { StateStore } from "./types.js";

const iso = isolation("leasebound");
const pg = new PostgresStateStore({ connectionString: PG_URL, schema: iso.schema });
const sqlite = new SqliteStateStore({ path: ":memory:" });
afterAll(async () => {
  await pg.close();
  sqlite.close();
  await iso.cleanup();
});

const stores: [string, StateStore][] = [
  ["memory", new MemoryStateStore()],
  ["sqlite", sqlite],
  ["postgres", pg],
];

describe.each(stores)("lease ttl bound on the %s store", (_name, store) => {
  it("refuses a ttl beyond MAX_LEASE_TTL_MS with a StateStoreError naming the bound, and grants the bound", async () => {
    expect(MAX_LEASE_TTL_MS).toBe(2_147_483_647);
    for (const [ttl, shown] of [
      [MAX_LEASE_TTL_MS + 1, "2147483648"],
      [1e300, "1e+300"],
    ] as const) {
      const e = await store.acquireLease("t", "main", "o1", ttl).catch((err: unknown) => err);
      expect(e).toBeInstanceOf(StateStoreError);
      expect((e as Error).message).toBe(
        `A lease ttlMs must be a positive number of ms up to 2147483647, got ${shown}`,
      );
    }
    expect(await store.acquireLease("t", "main", "o1", MAX_LEASE_TTL_MS)).toBe(true);
    expect(await store.acquireLease("t", "main", "o2", 1_000)).toBe(false);
    await store.releaseLease("t", "main", "o1");
  });
});
