import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { MemoryStoreError } from "../../errors/index.js";
import { HashEmbeddings } from "../../memory/hash-embeddings.js";
import { describeMemoryStoreContract } from "../../memory/testing/contract.js";
import type { MemoryStore } from "../../memory/types.js";
import { PGVECTOR_MISSING_MESSAGE, PostgresMemoryStore, PostgresStateStore } from "./index.js";
import { pgvectorAvailable } from "./pgvector.fixture.js";

const URL = "postgres://postgres@127.0.0.1:5432/test";
const prefix = `nodestep_mem_${randomBytes(4).toString("hex")}`;
let n = 0;
const admin = new pg.Pool({ connectionString: URL, max: 2 });

const hasPgvector = await pgvectorAvailable(URL);

afterAll(async () => {
  const left = await admin.query<{ nspname: string }>(
    "SELECT nspname FROM pg_namespace WHERE nspname LIKE $1",
    [`${prefix}%`],
  );
  for (const r of left.rows) await admin.query(`DROP SCHEMA IF EXISTS "${r.nspname}" CASCADE`);
  await admin.end();
});

for (const vectorIndex of ["exact", "auto"] as const) {
  describeMemoryStoreContract(
    `PostgresMemoryStore (vectorIndex "${vectorIndex}")`,
    async (options) =>
      new PostgresMemoryStore({
        connectionString: URL,
        schema: `${prefix}_${++n}`,
        vectorIndex,
        ...options,
      }),
    async (store) => {
      await admin.query(`DROP SCHEMA IF EXISTS "${(store as PostgresMemoryStore).schema}" CASCADE`);
    },
    {
      reopen: async (store: MemoryStore, options) =>
        new PostgresMemoryStore({
          connectionString: URL,
          schema: (store as PostgresMemoryStore).schema,
          vectorIndex,
          ...options,
        }),
    },
  );
}

describe("PostgresMemoryStore", () => {
  const index16 = () => ({
    embeddings: new HashEmbeddings({ dimensions: 16 }),
    dimensions: 16,
    fields: ["text"],
  });

  if (hasPgvector) {
    it("with pgvector on the server: auto chooses it, walks the HNSW index (EXPLAIN), finds the nearest of 300", async () => {
      const schema = `${prefix}_explain`;
      const store = new PostgresMemoryStore({ connectionString: URL, schema, index: index16() });
      expect(store.vectorMode).toBe(null);
      await store.ready();
      expect(store.vectorMode).toBe("pgvector");
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
  } else {
    it("without pgvector on the server: auto chooses exact, and vectorIndex pgvector throws one line", async () => {
      const auto = new PostgresMemoryStore({
        connectionString: URL,
        schema: `${prefix}_auto`,
        index: index16(),
      });
      await auto.ready();
      expect(auto.vectorMode).toBe("exact");
      await auto.close();
      const forced = new PostgresMemoryStore({
        connectionString: URL,
        schema: `${prefix}_forced`,
        index: index16(),
        vectorIndex: "pgvector",
      });
      const error = await forced.ready().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MemoryStoreError);
      expect((error as Error).message).toBe(PGVECTOR_MISSING_MESSAGE);
      expect(PGVECTOR_MISSING_MESSAGE).toBe(
        'PostgresMemoryStore: vectorIndex "pgvector" needs the pgvector extension, which the PostgreSQL server does not have (Debian 12 has no package for it): build and install pgvector (https://github.com/pgvector/pgvector) or use a PostgreSQL image with it (pgvector/pgvector), or use vectorIndex "auto" or "exact"',
      );
      expect(forced.vectorMode).toBe(null);
      await forced.close();
    });
  }

  it("exact mode: bytea vectors, the tables keep their mode, maxSearchItems, no explainSearch", async () => {
    const schema = `${prefix}_exact`;
    const store = new PostgresMemoryStore({
      connectionString: URL,
      schema,
      index: index16(),
      vectorIndex: "exact",
      maxSearchItems: 3,
    });
    for (let i = 0; i < 3; i++) await store.put(["docs", "a"], `d${i}`, { text: `word${i}` });
    await store.put(["docs", "b"], "d3", { text: "word3" });
    expect(store.vectorMode).toBe("exact");
    const cols = await admin.query<{ column_name: string; data_type: string }>(
      "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'memory_items' AND column_name LIKE 'embedding%'",
      [schema],
    );
    expect(cols.rows).toEqual([{ column_name: "embedding_f32", data_type: "bytea" }]);
    const [hit] = await store.search(["docs", "a"], { query: "word1", limit: 1 });
    expect(hit!.key).toBe("d1");
    expect(hit!.score).toBeCloseTo(1, 5);
    const tooMany = await store.search(["docs"], { query: "word1" }).catch((e: unknown) => e);
    expect(tooMany).toBeInstanceOf(MemoryStoreError);
    expect((tooMany as Error).message).toBe(
      'search: more than 3 indexed items under namespace prefix ["docs"] (maxSearchItems); search a narrower prefix, raise maxSearchItems, or use PostgresMemoryStore (pgvector index)',
    );
    await expect(store.explainSearch(["docs"], "word1")).rejects.toThrow(
      'PostgresMemoryStore: explainSearch needs vectorIndex "pgvector"',
    );
    await store.close();
    const auto = new PostgresMemoryStore({ connectionString: URL, schema, index: index16() });
    await auto.ready();
    expect(auto.vectorMode).toBe("exact");
    expect((await auto.search(["docs", "b"], { query: "word3" }))[0]!.key).toBe("d3");
    await auto.close();
    const other = new PostgresMemoryStore({
      connectionString: URL,
      schema,
      index: index16(),
      vectorIndex: "pgvector",
    });
    const error = await other.ready().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MemoryStoreError);
    expect((error as Error).message).toBe(
      `The memory tables "${schema}"."memory_items" keep vectors for vectorIndex "exact"; this store asks for "pgvector". Use "exact" or "auto", or another tablePrefix`,
    );
    await other.close();
    expect(
      () =>
        new PostgresMemoryStore({
          connectionString: URL,
          vectorIndex: "hnsw" as "auto",
        }),
    ).toThrow('PostgresMemoryStore: vectorIndex must be "auto", "pgvector" or "exact", got "hnsw"');
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
