/**
 * The lease session's client goes back to the pool without the listeners the store put on it:
 * a pool hands the same client out again, and listeners added per lease used to pile up on it
 * (Node's MaxListenersExceededWarning after 11 leases).
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { type PostgresPool, PostgresStateStore } from "./index.js";

const URL = "postgres://postgres@127.0.0.1:5432/test";
const schema = `nodestep_ls_${randomBytes(4).toString("hex")}`;
const pool = new pg.Pool({ connectionString: URL, max: 2 });
/** Every client the store checked out (its lease sessions), as pg hands them out. */
const sessions = new Set<pg.PoolClient>();
const recording: PostgresPool = {
  connect: async () => {
    const client = await pool.connect();
    sessions.add(client);
    return client;
  },
  query: (text, values) => pool.query(text as string, values),
};
const store = new PostgresStateStore({ pool: recording, schema });

afterAll(async () => {
  await store.close();
  await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await pool.end();
});

/** `[error, end]` listener counts of each client the store checked out. */
function counts(): number[][] {
  return [...sessions].map((c) => [c.listenerCount("error"), c.listenerCount("end")]);
}

describe("PostgresStateStore lease session listeners", () => {
  it("holds exactly one error and one end listener while a lease is held, none after 30 leases", async () => {
    await store.ready();
    const held: number[][][] = [];
    for (let i = 0; i < 30; i++) {
      expect(await store.acquireLease("t", "main", `o${i}`, 60_000)).toBe(true);
      held.push(counts());
      await store.releaseLease("t", "main", `o${i}`);
    }
    expect(sessions.size).toBeGreaterThanOrEqual(1);
    // While held the session's client has the store's two listeners (pg-pool takes its own
    // idle listener off a checked-out client); back in the pool, only pg-pool's idle one.
    const heldOnce = [[1, 1], ...[...sessions].slice(1).map(() => [1, 0])];
    for (const h of held)
      expect(h.slice(0, sessions.size).sort((a, b) => b[1]! - a[1]!)).toEqual(heldOnce);
    expect(counts()).toEqual([...sessions].map(() => [1, 0]));
  });
});
