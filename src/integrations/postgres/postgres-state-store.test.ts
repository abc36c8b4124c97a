import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { expectError } from "../../../test/helpers.js";
import { StateStoreError } from "../../errors/index.js";
import type { NewEvent } from "../../stores/index.js";
import { describeStateStoreContract } from "../../stores/testing/contract.js";
import { PostgresStateStore } from "./index.js";

const URL = "postgres://postgres@127.0.0.1:5432/test";
/** This file's schemas: one per store, all starting with this prefix, dropped after. */
const prefix = `nodestep_test_${randomBytes(4).toString("hex")}`;
let n = 0;
const admin = new pg.Pool({ connectionString: URL, max: 2 });

async function dropSchema(schema: string): Promise<void> {
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
}

afterAll(async () => {
  const left = await admin.query<{ nspname: string }>(
    "SELECT nspname FROM pg_namespace WHERE nspname LIKE $1",
    [`${prefix}%`],
  );
  for (const r of left.rows) await dropSchema(r.nspname);
  await admin.end();
});

describeStateStoreContract(
  "PostgresStateStore",
  async () => new PostgresStateStore({ connectionString: URL, schema: `${prefix}_${++n}` }),
  async (store) => dropSchema((store as PostgresStateStore).schema),
  {
    // A second store with its own pool: other connections, as another process would have.
    openPeer: async (store) =>
      new PostgresStateStore({
        connectionString: URL,
        schema: (store as PostgresStateStore).schema,
      }),
  },
);

function ev(data: NewEvent["data"]): NewEvent {
  return { type: "task_finished", runId: "r1", step: 0, taskId: "k", node: "a", data };
}

async function rejection(p: Promise<unknown>): Promise<StateStoreError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(StateStoreError);
  return e as StateStoreError;
}

describe("PostgresStateStore", () => {
  async function storeWith3Events(): Promise<PostgresStateStore> {
    const store = new PostgresStateStore({ connectionString: URL, schema: `${prefix}_${++n}` });
    await store.append("t1", "main", [ev({ n: 1 }), ev({ n: 2 }), ev({ n: 3 })], 0);
    return store;
  }

  it("creates its tables in its schema and stores data as the JSON text written", async () => {
    const store = await storeWith3Events();
    const tables = await admin.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name",
      [store.schema],
    );
    expect(tables.rows.map((r) => r.table_name)).toEqual([
      "branches",
      "events",
      "leases",
      "meta",
      "snapshots",
    ]);
    const meta = await admin.query(`SELECT key, value FROM "${store.schema}".meta ORDER BY key`);
    expect(meta.rows).toEqual([
      { key: "format", value: "nodestep-state-store" },
      { key: "schema_version", value: "1" },
    ]);
    const row = await admin.query(`SELECT data FROM "${store.schema}".events WHERE seq = 2`);
    expect(row.rows).toEqual([{ data: '{"n":2}' }]);
    await store.close();
    const again = new PostgresStateStore({ connectionString: URL, schema: store.schema });
    expect((await again.read("t1", "main")).map((e) => e.data)).toEqual([
      { n: 1 },
      { n: 2 },
      { n: 3 },
    ]);
    await again.close();
    await dropSchema(store.schema);
  });

  it("reports a row whose data is not valid JSON, naming the thread and seq", async () => {
    const store = await storeWith3Events();
    await admin.query(`UPDATE "${store.schema}".events SET data = '{"n": 2' WHERE seq = 2`);
    const err = await rejection(store.read("t1", "main"));
    expect(err.message).toContain('Event 2 of thread "t1" branch "main" is damaged');
    expect(err.message).toContain("not valid JSON");
    expect([err.threadId, err.branchId]).toEqual(["t1", "main"]);
    expect((await rejection(store.getEvent("t1/main/2"))).message).toContain("Event 2");
    expect((await store.read("t1", "main", { uptoSeq: 1 })).map((e) => e.data)).toEqual([{ n: 1 }]);
    await admin.query(`DELETE FROM "${store.schema}".events WHERE seq = 2`);
    expect((await rejection(store.read("t1", "main"))).message).toContain(
      "event 2 is missing from the log",
    );
    await store.saveSnapshot("t1", "main", { seq: 3, data: 1 });
    await admin.query(`UPDATE "${store.schema}".snapshots SET data = 'nope'`);
    expect((await rejection(store.loadSnapshot("t1", "main"))).message).toContain(
      'The snapshot of thread "t1" branch "main" (after event 3) is damaged',
    );
    await store.close();
    await dropSchema(store.schema);
  });

  it("refuses a schema written with another version, telling to migrate, and changes nothing", async () => {
    const store = await storeWith3Events();
    await store.close();
    await admin.query(`UPDATE "${store.schema}".meta SET value = '2' WHERE key = 'schema_version'`);
    const again = new PostgresStateStore({ connectionString: URL, schema: store.schema });
    const err = await rejection(again.read("t1", "main"));
    expect(err.message).toContain(
      `PostgreSQL schema "${store.schema}" was written with state store schema version 2; this nodestep reads version 1`,
    );
    expect(err.message).toContain("Migrate the schema");
    // Every call keeps failing the same way; nothing was written.
    expect((await rejection(again.append("t1", "main", [ev(4)], 3))).message).toContain(
      "version 2",
    );
    const count = await admin.query(`SELECT count(*)::int AS n FROM "${store.schema}".events`);
    expect(count.rows).toEqual([{ n: 3 }]);
    await again.close();
    await dropSchema(store.schema);
  });

  it("refuses a schema that holds other tables", async () => {
    const schema = `${prefix}_${++n}`;
    await admin.query(`CREATE SCHEMA "${schema}"; CREATE TABLE "${schema}".events (id int)`);
    const store = new PostgresStateStore({ connectionString: URL, schema });
    expect((await rejection(store.ready())).message).toContain(
      `PostgreSQL schema "${schema}" is not a nodestep state store: it has tables (events) but no meta table`,
    );
    await store.close();
    await dropSchema(schema);
  });

  it("sets up one schema from many stores at once", async () => {
    const schema = `${prefix}_${++n}`;
    const stores = Array.from(
      { length: 4 },
      () => new PostgresStateStore({ connectionString: URL, schema }),
    );
    await Promise.all(stores.map((s) => s.ready()));
    await stores[0]!.append("t", "main", [ev(1)], 0);
    expect((await stores[3]!.read("t", "main")).map((e) => e.data)).toEqual([1]);
    for (const s of stores) await s.close();
    await dropSchema(schema);
  });

  it("uses a pool it is given and leaves it open on close", async () => {
    const pool = new pg.Pool({ connectionString: URL, max: 2 });
    const schema = `${prefix}_${++n}`;
    const store = new PostgresStateStore({ pool, schema });
    await store.append("t", "main", [ev(1)], 0);
    await store.close();
    expect((await pool.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    await pool.end();
    await dropSchema(schema);
  });

  it("reports a server it cannot reach, and refuses bad options", async () => {
    const store = new PostgresStateStore({
      connectionString: "postgres://postgres@127.0.0.1:1/none",
      schema: `${prefix}_unreachable`,
    });
    expect((await rejection(store.getBranch("t", "main"))).message).toMatch(
      /Cannot connect to PostgreSQL for the state store/,
    );
    await store.close();
    expect(() => new PostgresStateStore({ connectionString: URL, schema: 'x"; DROP' })).toThrow(
      StateStoreError,
    );
    expect(() => new PostgresStateStore({ schema: "ok" })).toThrow(
      /needs a connectionString or a pool/,
    );
  });

  it("refuses public and the system schemas when it is made", async () => {
    for (const schema of ["pg_catalog", "pg_toast", "PG_temp_1", "information_schema"]) {
      await expectError(
        () => new PostgresStateStore({ connectionString: URL, schema }),
        StateStoreError,
        `PostgreSQL schema "${schema}" is a system schema; the state store creates its tables (meta, branches, events, snapshots, leases) in a schema of its own: pick another name, such as "nodestep" (the default)`,
      );
    }
    for (const schema of ["public", "Public"]) {
      await expectError(
        () => new PostgresStateStore({ connectionString: URL, schema }),
        StateStoreError,
        `PostgreSQL schema "${schema}" is the database's shared default schema; the state store creates its tables (meta, branches, events, snapshots, leases) in a schema of its own, so that they never mix with the application's: pick another name, such as "nodestep" (the default)`,
      );
    }
  });

  it("looks up branches and event ranges through the primary keys", async () => {
    const store = await storeWith3Events();
    const plan = async (sql: string) => {
      const client = await admin.connect();
      try {
        await client.query("SET enable_seqscan = off");
        const res = await client.query(`EXPLAIN ${sql}`);
        return res.rows.map((r: { "QUERY PLAN": string }) => r["QUERY PLAN"]).join("\n");
      } finally {
        await client.query("RESET enable_seqscan");
        client.release();
      }
    };
    const s = `"${store.schema}"`;
    expect(
      await plan(
        `UPDATE ${s}.branches SET last_seq = 4 WHERE thread_id = 't1' AND branch_id = 'main' AND last_seq = 3`,
      ),
    ).toMatch(/Index Scan using branches_pkey/);
    expect(
      await plan(
        `SELECT * FROM ${s}.events WHERE thread_id = 't1' AND branch_id = 'main' AND seq > 1 AND seq <= 3`,
      ),
    ).toMatch(/Index (Only )?Scan using events_pkey|Bitmap Index Scan on events_pkey/);
    await store.close();
    await dropSchema(store.schema);
  });
});
