import pg from "pg";
import { describe, expect, it } from "vitest";
import { MemoryStoreError } from "../../errors/index.js";
import { HashEmbeddings } from "../../memory/hash-embeddings.js";
import { InMemoryStore } from "../../memory/in-memory-store.js";
import type { Embeddings, MemoryOperation } from "../../memory/types.js";
import { PostgresMemoryStore, type PostgresMemoryStoreOptions } from "./index.js";
import { testSchemas } from "./test-schemas.fixture.js";

const { url: URL, admin, next: nextSchema } = testSchemas("membatch");

/** A clock that moves 1 ms each time it is read, from `start`. */
function clock(start: number): () => number {
  let t = start;
  return () => t++;
}

/** HashEmbeddings of 16 dimensions, recording the texts of each call; a text with "boom" fails its call. */
function recorded(): { embeddings: Embeddings; calls: string[][] } {
  const inner = new HashEmbeddings({ dimensions: 16 });
  const calls: string[][] = [];
  return {
    calls,
    embeddings: {
      embed: async (texts) => {
        calls.push([...texts]);
        if (texts.some((t) => t.includes("boom"))) throw new Error("boom refused");
        return inner.embed(texts);
      },
    },
  };
}

function make(options: Partial<PostgresMemoryStoreOptions> = {}): PostgresMemoryStore {
  return new PostgresMemoryStore({
    connectionString: URL,
    schema: nextSchema(),
    vectorIndex: "exact",
    ...options,
  });
}

async function failure(f: () => Promise<unknown>): Promise<MemoryStoreError> {
  const e = await f().then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(MemoryStoreError);
  return e as MemoryStoreError;
}

const puts = (ns: string[], from: number, to: number): MemoryOperation[] =>
  Array.from({ length: to - from }, (_, k) => ({
    op: "put" as const,
    namespace: ns,
    key: `k${from + k}`,
    value: { text: `word${from + k} group${(from + k) % 7}`, n: from + k },
  }));

describe("PostgresMemoryStore batch", () => {
  it("writes 2,600 puts of one batch, each with its own read of the clock, each text embedded once", async () => {
    const { embeddings, calls } = recorded();
    const store = make({
      now: clock(1_000_000),
      index: { embeddings, dimensions: 16, fields: ["text"] },
    });
    const out = await store.batch(puts(["b"], 0, 2_600));
    expect(out).toEqual(Array.from({ length: 2_600 }, () => undefined));
    const rows = await admin.query<{ count: string; lo: string; hi: string; vectors: string }>(
      `SELECT count(*) AS count, min(created_at) AS lo, max(updated_at) AS hi, count(embedding_f32) AS vectors FROM "${store.schema}".memory_items`,
    );
    expect(rows.rows).toEqual([{ count: "2600", lo: "1000000", hi: "1002599", vectors: "2600" }]);
    expect(await store.get(["b"], "k1234")).toEqual({
      namespace: ["b"],
      key: "k1234",
      value: { text: "word1234 group2", n: 1234 },
      createdAt: 1_001_234,
      updatedAt: 1_001_234,
      expiresAt: null,
    });
    expect(calls.flat().sort()).toEqual(
      Array.from({ length: 2_600 }, (_, i) => `word${i} group${i % 7}`).sort(),
    );
    // The vectors are the ones InMemoryStore makes of the same puts: the same search, to the bit.
    const oracle = new InMemoryStore({
      now: clock(1_000_000),
      index: {
        embeddings: new HashEmbeddings({ dimensions: 16 }),
        dimensions: 16,
        fields: ["text"],
      },
    });
    await oracle.batch(puts(["b"], 0, 2_600));
    for (const query of ["word1234 group2", "word7 word2001", "group5"]) {
      const want = await oracle.search(["b"], { query, limit: 20 });
      expect(want.length).toBe(20);
      expect(await store.search(["b"], { query, limit: 20 })).toEqual(want);
    }
    await store.close();
  });

  it("puts a key twice in a batch: the last value wins, createdAt stays the first put's, an expired one's is new", async () => {
    const { embeddings, calls } = recorded();
    const store = make({
      now: clock(100),
      index: { embeddings, dimensions: 16, fields: ["text"] },
    });
    await store.batch([
      { op: "put", namespace: ["d"], key: "a", value: { text: "one", n: 1 } }, // t 100
      { op: "put", namespace: ["d"], key: "b", value: { text: "two" } }, // 101
      { op: "put", namespace: ["d"], key: "a", value: { text: "three", n: 3 } }, // 102
      { op: "put", namespace: ["d"], key: "a", value: { text: "three", n: 4 } }, // 103
      { op: "put", namespace: ["d"], key: "c", value: { text: "four" }, options: { ttlMs: 1 } }, // 104, expires 105
      { op: "put", namespace: ["d"], key: "x", value: { text: "five" } }, // 105
      { op: "put", namespace: ["d"], key: "c", value: { text: "six" } }, // 106: c had expired
      { op: "put", namespace: ["d"], key: "k", value: { text: "seven" } }, // 107
      {
        op: "put",
        namespace: ["d"],
        key: "k",
        value: { text: "eight" },
        options: { createdAt: 5, updatedAt: 6 },
      }, // 108, times kept
      { op: "put", namespace: ["d"], key: "k", value: { text: "nine" } }, // 109
    ]);
    const times = (await store.list(["d"], { limit: 100 })).map((i) => [
      i.key,
      i.value,
      i.createdAt,
      i.updatedAt,
      i.expiresAt,
    ]);
    expect(times).toEqual([
      ["a", { text: "three", n: 4 }, 100, 103, null],
      ["b", { text: "two" }, 101, 101, null],
      ["c", { text: "six" }, 106, 106, null],
      ["k", { text: "nine" }, 5, 109, null],
      ["x", { text: "five" }, 105, 105, null],
    ]);
    // "three" once: the fourth put keeps the vector of the same text.
    expect(calls.flat().sort()).toEqual(
      ["eight", "five", "four", "nine", "one", "seven", "six", "three", "two"].sort(),
    );
    const found = await store.search(["d"], { query: "three", limit: 1 });
    expect(found.map((i) => [i.key, i.score])).toEqual([["a", expect.closeTo(1, 6)]]);
    await store.close();
  });

  it("runs gets, searches, lists and deletes after puts of the same batch on what they wrote, as InMemoryStore does", async () => {
    const mixed: MemoryOperation[] = [
      ...puts(["m", "x"], 0, 5),
      { op: "get", namespace: ["m", "x"], key: "k3" },
      { op: "put", namespace: ["m", "y"], key: "k3", value: { text: "word3 again" } },
      { op: "search", namespacePrefix: ["m"], options: { query: "word3", limit: 3 } },
      { op: "delete", namespace: ["m", "x"], key: "k3" },
      { op: "get", namespace: ["m", "x"], key: "k3" },
      { op: "put", namespace: ["m", "x"], key: "k3", value: { text: "back" } },
      { op: "put", namespace: ["m", "x"], key: "k4", value: { text: "replaced" } },
      { op: "list", namespacePrefix: ["m"], options: { limit: 20 } },
      { op: "listNamespaces" },
      { op: "delete", namespace: ["m", "x"], key: "k9" },
    ];
    const index = () => ({ embeddings: new HashEmbeddings({ dimensions: 16 }), dimensions: 16 });
    const store = make({ now: clock(500), index: { ...index(), fields: ["text"] } });
    const oracle = new InMemoryStore({ now: clock(500), index: { ...index(), fields: ["text"] } });
    const got = await store.batch(mixed);
    expect(got).toEqual(await oracle.batch(mixed));
    expect(got[5]).toEqual({
      namespace: ["m", "x"],
      key: "k3",
      value: { text: "word3 group3", n: 3 },
      createdAt: 503,
      updatedAt: 503,
      expiresAt: null,
    });
    expect((got[7] as { key: string }[]).map((i) => i.key)).toEqual(["k3", "k3", "k0"]);
    expect(got[8]).toBe(true);
    expect(got[9]).toBe(null);
    expect((got[12] as { key: string; value: unknown }[]).map((i) => [i.key, i.value])).toEqual([
      ["k0", { text: "word0 group0", n: 0 }],
      ["k1", { text: "word1 group1", n: 1 }],
      ["k2", { text: "word2 group2", n: 2 }],
      ["k3", { text: "back" }],
      ["k4", { text: "replaced" }],
      ["k3", { text: "word3 again" }],
    ]);
    await store.close();
    await oracle.close();
  });

  it("stops at a put that fails its checks: the puts before it are written, the ones after are not", async () => {
    const store = make();
    const ops: MemoryOperation[] = [
      ...puts(["e"], 0, 3),
      { op: "put", namespace: ["e"], key: "k3", value: [1] as never },
      ...puts(["e"], 4, 6),
    ];
    const error = await failure(() => store.batch(ops));
    expect(error.message).toBe(
      'batch: operation 3 (put): put: the value of item "k3" of namespace ["e"] must be a JSON object, got an array',
    );
    expect([error.namespace, error.key]).toEqual([["e"], "k3"]);
    expect((await store.list(["e"])).map((i) => i.key)).toEqual(["k0", "k1", "k2"]);
    const unknown = await failure(() =>
      store.batch([...puts(["f"], 0, 2), { op: "upsert" } as never, ...puts(["f"], 2, 3)]),
    );
    expect(unknown.message).toBe(
      'batch: operation 2 (upsert): unknown op "upsert"; use "get", "put", "delete", "list", "search" or "listNamespaces"',
    );
    expect((await store.list(["f"])).map((i) => i.key)).toEqual(["k0", "k1"]);
    await store.close();
  });

  it("names the put whose embedding fails, with the puts before it written", async () => {
    const { embeddings } = recorded();
    const store = make({ index: { embeddings, dimensions: 16, fields: ["text"] } });
    const ops: MemoryOperation[] = [
      ...puts(["g"], 0, 3),
      { op: "put", namespace: ["g"], key: "k3", value: { text: "boom" } },
      ...puts(["g"], 4, 6),
    ];
    const error = await failure(() => store.batch(ops));
    expect(error.message).toBe(
      "batch: operation 3 (put): The embeddings failed for 1 text(s): boom refused",
    );
    expect((await store.list(["g"])).map((i) => i.key)).toEqual(["k0", "k1", "k2"]);
    await store.close();
  });

  it("names the put that PostgreSQL refuses (a key with U+0000), with the puts before it written", async () => {
    const store = make();
    const ops: MemoryOperation[] = [
      ...puts(["h"], 0, 3),
      { op: "put", namespace: ["h"], key: "k\u00003", value: { n: 3 } },
      ...puts(["h"], 4, 6),
    ];
    const error = await failure(() => store.batch(ops));
    expect(error.message).toBe(
      'batch: operation 3 (put): PostgresMemoryStore: the query failed: invalid byte sequence for encoding "UTF8": 0x00',
    );
    expect((await store.list(["h"])).map((i) => i.key)).toEqual(["k0", "k1", "k2"]);
    await store.close();
  });

  it("sends consecutive puts as one upsert each (up to 1,000), a key again or a change of kept times starting the next", async () => {
    const pool = new pg.Pool({ connectionString: URL, max: 2 });
    const sent: string[] = [];
    const query = pool.query.bind(pool) as (sql: string, params: unknown[]) => Promise<unknown>;
    (pool as unknown as { query: typeof query }).query = (sql, params) => {
      sent.push(sql.trimStart().split(/\s/)[0] as string);
      return query(sql, params);
    };
    const { embeddings, calls } = recorded();
    const plain = make({ pool });
    await plain.ready();
    await plain.batch([
      ...puts(["p"], 0, 600),
      { op: "get", namespace: ["p"], key: "k0" },
      ...puts(["p"], 600, 900),
    ]);
    expect(sent).toEqual(["INSERT", "SELECT", "INSERT"]);
    sent.length = 0;
    const times = { createdAt: 1, updatedAt: 2 };
    await plain.batch([
      { op: "put", namespace: ["p"], key: "a", value: {} },
      { op: "put", namespace: ["p"], key: "b", value: {} },
      { op: "put", namespace: ["p"], key: "a", value: {} }, // again: a second upsert
      { op: "put", namespace: ["p"], key: "c", value: {}, options: times }, // kept times: a third
      { op: "put", namespace: ["p"], key: "d", value: {}, options: times },
      { op: "put", namespace: ["p"], key: "e", value: {} }, // a fourth
    ]);
    expect(sent).toEqual(["INSERT", "INSERT", "INSERT", "INSERT"]);
    sent.length = 0;
    const big = { text: "x".repeat(900_000) };
    await plain.batch(
      Array.from({ length: 5 }, (_, i) => ({
        op: "put" as const,
        namespace: ["p"],
        key: `big${i}`,
        value: big,
      })),
    );
    expect(sent).toEqual(["INSERT", "INSERT"]); // 4 MiB of JSON at most an upsert
    sent.length = 0;
    const indexed = make({ pool, index: { embeddings, dimensions: 16, fields: ["text"] } });
    await indexed.ready();
    await indexed.batch(puts(["q"], 0, 2_600));
    // Per 1,000 puts: the stored texts' hashes, one call to the embedder, the upsert.
    expect(sent).toEqual(["SELECT", "INSERT", "SELECT", "INSERT", "SELECT", "INSERT"]);
    expect(calls.map((c) => c.length)).toEqual([1_000, 1_000, 600]);
    sent.length = 0;
    calls.length = 0;
    await indexed.batch(puts(["q"], 0, 2_600)); // the same texts: none embedded again
    expect(sent).toEqual(["SELECT", "INSERT", "SELECT", "INSERT", "SELECT", "INSERT"]);
    expect(calls).toEqual([]);
    await plain.close();
    await indexed.close();
    await pool.end();
  });
});
