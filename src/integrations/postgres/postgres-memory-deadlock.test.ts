import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { describe, expect, it } from "vitest";
import type { MemoryOperation } from "../../memory/types.js";
import { PostgresMemoryStore } from "./index.js";
import { testSchemas } from "./test-schemas.fixture.js";

const { url: URL, admin, prefix: schema } = testSchemas("memdeadlock");

/** Wait until `n` sessions of this test wait on a lock. */
async function waitingOnLocks(n: number): Promise<void> {
  for (let k = 0; k < 200; k++) {
    const r = await admin.query<{ c: number }>(
      "SELECT count(*)::int AS c FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND application_name = $1",
      [schema],
    );
    if ((r.rows[0]?.c ?? 0) >= n) return;
    await sleep(20);
  }
  throw new Error(`fewer than ${n} sessions wait on a lock`);
}

describe("PostgresMemoryStore: a batch's multi-row upsert and deletes of many rows", () => {
  it("deleteNamespace and purgeExpired run again when PostgreSQL ends them for a deadlock with a batch's upsert", async () => {
    // The batch's session detects deadlocks late, the deleting one early (and scans the table
    // in its physical order, here the reverse of the keys'): the delete is the one ended.
    const batchPool = new pg.Pool({
      connectionString: URL,
      application_name: schema,
      options: "-c deadlock_timeout=10s",
    });
    const deletePool = new pg.Pool({
      connectionString: URL,
      application_name: schema,
      options: "-c deadlock_timeout=50ms -c enable_indexscan=off -c enable_bitmapscan=off",
    });
    const writer = new PostgresMemoryStore({ pool: batchPool, schema });
    const deleter = new PostgresMemoryStore({ pool: deletePool, schema });
    const keys = Array.from({ length: 200 }, (_, i) => `k${String(i).padStart(3, "0")}`);
    for (const purge of [false, true]) {
      await writer.deleteNamespace(["d"]);
      for (const k of [...keys].reverse()) await writer.put(["d"], k, { v: 0 }, { ttlMs: 1 });
      await sleep(5); // every row has expired: purgeExpired deletes them all
      const holder = await admin.connect();
      try {
        await holder.query("BEGIN");
        await holder.query(`SELECT 1 FROM "${schema}".memory_items WHERE key = 'k000' FOR UPDATE`);
        const ops = keys.map(
          (k): MemoryOperation => ({ op: "put", namespace: ["d"], key: k, value: { v: 1 } }),
        );
        const batch = writer.batch(ops);
        await waitingOnLocks(1); // the upsert waits for k000, holding nothing yet
        const deleted = purge ? deleter.purgeExpired() : deleter.deleteNamespace(["d"]);
        await waitingOnLocks(2); // the delete holds k199..k001 and waits for k000
        await holder.query("COMMIT");
        // The upsert takes k000 and waits for k001: a deadlock, which ends the delete.
        const [written, count] = await Promise.all([batch, deleted]);
        expect(written).toEqual(keys.map(() => undefined));
        // deleteNamespace deletes the rows the batch wrote; purgeExpired finds none expired then.
        expect(count).toBe(purge ? 0 : 200);
        expect((await writer.list(["d"], { limit: 1000 })).map((i) => i.value)).toEqual(
          purge ? keys.map(() => ({ v: 1 })) : [],
        );
      } finally {
        holder.release();
      }
    }
    await writer.close();
    await deleter.close();
    await batchPool.end();
    await deletePool.end();
  }, 60_000);
});
