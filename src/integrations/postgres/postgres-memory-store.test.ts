import pg from "pg";
import { describe, expect, it } from "vitest";
import { MemoryStoreError } from "../../errors/index.js";
import { HashEmbeddings } from "../../memory/hash-embeddings.js";
import { InMemoryStore } from "../../memory/in-memory-store.js";
import { describeMemoryStoreContract } from "../../memory/testing/contract.js";
import type { MemoryStore, SearchOptions } from "../../memory/types.js";
import {
  chooseVectorMode,
  PGVECTOR_MISSING_MESSAGE,
  PostgresMemoryStore,
  PostgresStateStore,
  type PostgresVectorIndex,
} from "./index.js";
import { pgvectorAvailable } from "./pgvector.fixture.js";
import { testSchemas } from "./test-schemas.fixture.js";

const { url: URL, admin, prefix, next: nextSchema } = testSchemas("mem");

const hasPgvector = await pgvectorAvailable(URL);

// On a server with pgvector, the contract runs a third time with sequential scans and sorts
// off, so that its small searches walk the HNSW index instead of being planned as scan + sort.
const FORCED = `${URL}?options=${encodeURIComponent("-c enable_seqscan=off -c enable_sort=off")}`;
const runs: { name: string; vectorIndex: PostgresVectorIndex; url: string }[] = [
  { name: 'vectorIndex "exact"', vectorIndex: "exact" as const, url: URL },
  {
    name: `vectorIndex "auto", ${hasPgvector ? "pgvector" : "exact"} here`,
    vectorIndex: "auto" as const,
    url: URL,
  },
  ...(hasPgvector
    ? [
        {
          name: 'vectorIndex "pgvector", HNSW plans forced',
          vectorIndex: "pgvector" as const,
          url: FORCED,
        },
      ]
    : []),
];
for (const { name, vectorIndex, url } of runs) {
  describeMemoryStoreContract(
    `PostgresMemoryStore (${name})`,
    async (options) =>
      new PostgresMemoryStore({
        connectionString: url,
        schema: nextSchema(),
        vectorIndex,
        ...options,
      }),
    async (store) => {
      await admin.query(`DROP SCHEMA IF EXISTS "${(store as PostgresMemoryStore).schema}" CASCADE`);
    },
    {
      reopen: async (store: MemoryStore, options) =>
        new PostgresMemoryStore({
          connectionString: url,
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
    it("with pgvector on the server: auto chooses it, a vector column with an HNSW index, walked by the query plan (EXPLAIN)", async () => {
      const schema = `${prefix}_explain`;
      const store = new PostgresMemoryStore({ connectionString: URL, schema, index: index16() });
      expect(store.vectorMode).toBe(null);
      await store.ready();
      expect(store.vectorMode).toBe("pgvector");
      for (let i = 0; i < 300; i++)
        await store.put(["docs", `g${i % 3}`], `d${i}`, { text: `word${i} other${i % 7}` });
      await admin.query(`ANALYZE "${schema}".memory_items`);
      const cols = await admin.query<{ column_name: string; udt_name: string }>(
        "SELECT column_name, udt_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'memory_items' AND column_name LIKE 'embedding%'",
        [schema],
      );
      expect(cols.rows).toEqual([{ column_name: "embedding", udt_name: "vector" }]);
      const idx = await admin.query<{ indexdef: string }>(
        "SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = 'memory_items_embedding'",
        [schema],
      );
      expect(idx.rows[0]?.indexdef).toMatch(
        /USING hnsw \(embedding (public\.)?vector_cosine_ops\)$/,
      );
      // (A narrow prefix may be planned through the primary key and a sort instead: exact.)
      for (const p of [["docs"], []]) {
        const plan = (await store.explainSearch(p, "word42", { enable_seqscan: "off" })).join("\n");
        expect(plan).toMatch(/Index Scan using memory_items_embedding on memory_items/);
        expect(plan).toMatch(/Order By: \(embedding (OPERATOR\(public\.)?<=>/);
      }
      await store.close();
    });

    it("with pgvector: the same results as exact search (InMemoryStore), ties in namespace and key order, with filters, prefixes and offsets", async () => {
      const schema = `${prefix}_same`;
      // 400 rows are few enough for PostgreSQL to rather scan and sort (exact); without seq
      // scans and sorts it must walk the HNSW index, which is what this test compares.
      const pool = new pg.Pool({
        connectionString: URL,
        max: 2,
        options: "-c enable_seqscan=off -c enable_sort=off",
      });
      const store = new PostgresMemoryStore({ pool, schema, index: index16(), efSearch: 1000 });
      const oracle = new InMemoryStore({ index: index16() });
      for (let i = 0; i < 400; i++) {
        // Two words a text, many texts alike: exact ties, which both must order by namespace and key.
        const value = { text: `w${i % 23} v${i % 11}`, n: i, kind: i % 3 === 0 ? "a" : "b" };
        const ns = ["docs", `g${i % 4}`];
        await store.put(ns, `d${i}`, value);
        await oracle.put(ns, `d${i}`, value);
      }
      await store.put(["docs", "g0"], "plain", { text: "w1 v1" }, { index: false });
      await oracle.put(["docs", "g0"], "plain", { text: "w1 v1" }, { index: false });
      expect(store.vectorMode).toBe("pgvector");
      const cases: [string[], SearchOptions][] = [
        [["docs"], { query: "w1 v1", limit: 10 }],
        [["docs"], { query: "w5", limit: 25, offset: 7 }],
        [["docs", "g2"], { query: "w2 v3", limit: 12 }],
        [[], { query: "v4", limit: 30, filter: { kind: "a" } }],
        [["docs"], { query: "w7 v7", limit: 5, offset: 3, filter: { n: { $gte: 200 } } }],
        [["docs", "g1"], { query: "w9", limit: 50, filter: { kind: "b", n: { $lt: 100 } } }],
      ];
      for (const [p, options] of cases) {
        const plan = (await store.explainSearch(p, options.query!)).join("\n");
        expect(plan).toMatch(/Index Scan using memory_items_embedding on memory_items/);
        const got = await store.search(p, options);
        const want = await oracle.search(p, options);
        expect(got.length).toBe(want.length);
        expect(got.map((i) => `${i.namespace.join("/")}:${i.key}`)).toEqual(
          want.map((i) => `${i.namespace.join("/")}:${i.key}`),
        );
        for (let i = 0; i < got.length; i++) {
          expect(got[i]!.score).toBeCloseTo(want[i]!.score!, 5);
          expect(got[i]!.value).toEqual(want[i]!.value);
        }
      }
      const ties = await store.search(["docs"], { query: "w1 v1", limit: 4 });
      // Three texts alike the query, then the first of many at 0.5 (the limit cuts a tie).
      expect(ties.map((i) => [i.namespace[1], i.key, i.value.text])).toEqual([
        ["g0", "d208", "w1 v10"],
        ["g1", "d1", "w1 v1"],
        ["g2", "d254", "w1 v1"],
        ["g0", "d100", "w8 v1"],
      ]);
      expect(ties.map((i) => Math.round(i.score! * 1e5) / 1e5)).toEqual([1, 1, 1, 0.5]);
      await store.close();
      await oracle.close();
      await pool.end();
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
        vectorIndex: "pgvector" as const,
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

  it("chooses the vector mode from the tables', the option and the server (every combination, on any server)", () => {
    const t = '"s"."memory_items"';
    const modes = (["auto", "pgvector", "exact"] as const).flatMap((want) =>
      ([null, "pgvector", "exact"] as const).flatMap((tables) =>
        [true, false].map((available) => {
          try {
            return `${want}/${tables}/${available}: ${chooseVectorMode(want, tables, available, t)}`;
          } catch (e) {
            expect(e).toBeInstanceOf(MemoryStoreError);
            return `${want}/${tables}/${available}: ${(e as Error).message}`;
          }
        }),
      ),
    );
    const refused = (tables: string, want: string) =>
      `The memory tables "s"."memory_items" keep vectors for vectorIndex "${tables}"; this store asks for "${want}". Use "${tables}" or "auto", or another tablePrefix`;
    expect(modes).toEqual([
      "auto/null/true: pgvector",
      "auto/null/false: exact",
      "auto/pgvector/true: pgvector",
      `auto/pgvector/false: ${PGVECTOR_MISSING_MESSAGE}`,
      "auto/exact/true: exact",
      "auto/exact/false: exact",
      "pgvector/null/true: pgvector",
      `pgvector/null/false: ${PGVECTOR_MISSING_MESSAGE}`,
      "pgvector/pgvector/true: pgvector",
      `pgvector/pgvector/false: ${PGVECTOR_MISSING_MESSAGE}`,
      `pgvector/exact/true: ${refused("exact", "pgvector")}`,
      `pgvector/exact/false: ${refused("exact", "pgvector")}`,
      "exact/null/true: exact",
      "exact/null/false: exact",
      `exact/pgvector/true: ${refused("pgvector", "exact")}`,
      `exact/pgvector/false: ${refused("pgvector", "exact")}`,
      "exact/exact/true: exact",
      "exact/exact/false: exact",
    ]);
  });

  it("exact mode (forced, also on a server with pgvector): bytea vectors, the tables keep their mode, maxSearchItems, no explainSearch", async () => {
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
      vectorIndex: "pgvector" as const,
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
    expect(() => new PostgresMemoryStore({ connectionString: URL, efSearch: 0 })).toThrow(
      new MemoryStoreError(
        "PostgresMemoryStore: efSearch must be a whole number from 1 to 1000, got 0",
      ),
    );
    expect(() => new PostgresMemoryStore({ connectionString: URL, efSearch: 1001 })).toThrow(
      "PostgresMemoryStore: efSearch must be a whole number from 1 to 1000, got 1001",
    );
  });
});
