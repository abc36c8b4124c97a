import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryStoreError } from "../../errors/index.js";
import { HashEmbeddings } from "../../memory/hash-embeddings.js";
import { describeMemoryStoreContract } from "../../memory/testing/contract.js";
import type { MemoryStore } from "../../memory/types.js";
import { PostgresMemoryStore, PostgresStateStore } from "./index.js";
import { ensurePgvector } from "./pgvector.fixture.js";

const URL = "postgres://postgres@127.0.0.1:5432/test";
const prefix = `nodestep_mem_${randomBytes(4).toString("hex")}`;
let n = 0;
const admin = new pg.Pool({ connectionString: URL, max: 2 });

beforeAll(async () => {
  await ensurePgvector(URL);
}, 320_000);

afterAll(async () => {
  const left = await admin.query<{ nspname: string }>(
    "SELECT nspname FROM pg_namespace WHERE nspname LIKE $1",
    [`${prefix}%`],
  );
  for (const r of left.rows) await admin.query(`DROP SCHEMA IF EXISTS "${r.nspname}" CASCADE`);
  await admin.end();
});

describeMemoryStoreContract(
  "PostgresMemoryStore",
  async (options) =>
    new PostgresMemoryStore({ connectionString: URL, schema: `${prefix}_${++n}`, ...options }),
  async (store) => {
    await admin.query(`DROP SCHEMA IF EXISTS "${(store as PostgresMemoryStore).schema}" CASCADE`);
  },
  {
    reopen: async (store: MemoryStore, options) =>
      new PostgresMemoryStore({
        connectionString: URL,
        schema: (store as PostgresMemoryStore).schema,
        ...options,
      }),
  },
);

describe("PostgresMemoryStore", () => {
  it("walks the HNSW index for a query (EXPLAIN), and finds the nearest of 300 items", async () => {
    const schema = `${prefix}_explain`;
    const embeddings = new HashEmbeddings({ dimensions: 16 });
    const store = new PostgresMemoryStore({
      connectionString: URL,
      schema,
      index: { embeddings, dimensions: 16, fields: ["text"] },
    });
    for (let i = 0; i < 300; i++)
      await store.put(["docs"], `d${i}`, { text: `word${i} other${i % 7}` });
    await admin.query(`ANALYZE "${schema}".memory_items`);
    const plan = (await store.explainSearch(["docs"], "word42", { enable_seqscan: "off" })).join(
      "\n",
    );
    expect(plan).toMatch(/Index Scan using memory_items_embedding on memory_items/);
    const [hit] = await store.search(["docs"], { query: "word42 other0", limit: 1 });
    expect(hit!.key).toBe("d42");
    expect(hit!.score).toBeCloseTo(1, 5);
    await store.close();
  });

  it("shares a schema and a pool with the state store", async () => {
    const schema = `${prefix}_shared`;
    const pool = new pg.Pool({ connectionString: URL, max: 3 });
    const state = new PostgresStateStore({ pool, schema });
    const memory = new PostgresMemoryStore({ pool, schema });
    await memory.put(["u"], "k", { v: 1 });
    await state.append(
      "t1",
      "main",
      [{ type: "run_started", runId: "r1", step: null, taskId: null, node: null, data: null }],
      0,
    );
    expect((await memory.get(["u"], "k"))?.value).toEqual({ v: 1 });
    expect((await state.read("t1", "main")).length).toBe(1);
    const tables = await admin.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name",
      [schema],
    );
    expect(tables.rows.map((r) => r.table_name)).toEqual([
      "branches",
      "events",
      "leases",
      "memory_items",
      "memory_meta",
      "meta",
      "snapshots",
    ]);
    await memory.close();
    await state.close();
    await pool.end();
  });

  it("refuses other dimensions than the tables', and bad names", async () => {
    const schema = `${prefix}_dims`;
    const a = new PostgresMemoryStore({
      connectionString: URL,
      schema,
      index: { embeddings: new HashEmbeddings({ dimensions: 8 }), dimensions: 8 },
    });
    await a.ready();
    await a.close();
    const b = new PostgresMemoryStore({
      connectionString: URL,
      schema,
      index: { embeddings: new HashEmbeddings({ dimensions: 9 }), dimensions: 9 },
    });
    const error = await b.ready().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MemoryStoreError);
    expect((error as Error).message).toBe(
      `The memory tables "${schema}"."memory_items" hold vectors of 8 dimensions; this store's index.dimensions is 9. Use the same embeddings, or another tablePrefix`,
    );
    await b.close();
    expect(() => new PostgresMemoryStore({ connectionString: URL, schema: "a-b" })).toThrow(
      'PostgresMemoryStore: invalid schema name "a-b": use letters, digits and _, not starting with a digit, at most 63 characters',
    );
    expect(
      () =>
        new PostgresMemoryStore({
          connectionString: URL,
          index: { embeddings: new HashEmbeddings(), dimensions: 2001 },
        }),
    ).toThrow(
      "PostgresMemoryStore: index.dimensions must be a whole number from 1 to 2000, got 2001",
    );
  });
});
