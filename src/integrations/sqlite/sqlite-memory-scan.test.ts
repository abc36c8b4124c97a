import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { MemoryStoreError } from "../../errors/index.js";
import { InMemoryStore } from "../../memory/in-memory-store.js";
import { embedChecked, prefixRange } from "../../memory/internal.js";
import {
  expectSameSearches,
  expectTies,
  index16,
  PLAIN_SEARCHES,
  putAlike,
} from "../../memory/search-oracle.fixture.js";
import { chunkedSearch, chunkedSearchWorks, prepareChunks } from "./sqlite-memory-scan.js";
import { SqliteMemoryStore } from "./sqlite-memory-store.js";

const now = () => 1_000_000;

/** A store on a private database, the same items in it and in an InMemoryStore. */
async function filled() {
  const db = new Database(":memory:");
  const store = new SqliteMemoryStore({ database: db, index: index16(), now });
  const oracle = new InMemoryStore({ index: index16(), now });
  await putAlike([store, oracle], 300);
  return { db, store, oracle };
}

describe("SqliteMemoryStore search without a filter (vectors read in chunks)", () => {
  it("finds what InMemoryStore finds, to the last bit of each score: ties, prefixes (empty, of no items), offsets", async () => {
    const { db, store, oracle } = await filled();
    expect(chunkedSearchWorks(db)).toBe(true);
    await expectSameSearches(store, oracle, PLAIN_SEARCHES);
    await expectTies(store);
    await store.close();
    db.close();
  });

  it("gives the same ranking with chunks of any size, across namespaces, and counts every vector for maxSearchItems", async () => {
    const { db, store } = await filled();
    const chunks = prepareChunks(db, "memory_");
    const [q] = (await embedChecked(index16(), ["w4 v2"])) as [Float32Array];
    for (const prefix of [[], ["docs"], ["docs", "g3"]]) {
      const { lo, hi } = prefixRange(prefix);
      const range = { lo, hi: hi ?? "\u{10ffff}", now: now() };
      const whole = chunkedSearch(db, chunks, q, range, 1000, 1000, prefix);
      expect(whole!.length).toBe(prefix.length === 0 ? 300 : prefix.length === 1 ? 240 : 60);
      for (const size of [1, 2, 7, 64]) {
        expect(chunkedSearch(db, chunks, q, range, 1000, 1000, prefix, size)).toEqual(whole);
        expect(chunkedSearch(db, chunks, q, range, 5, 1000, prefix, size)).toEqual(
          whole!.slice(0, 5),
        );
      }
      const n = whole!.length;
      expect(chunkedSearch(db, chunks, q, range, 5, n, prefix, 7)).toEqual(whole!.slice(0, 5));
      const error = (() => {
        try {
          return chunkedSearch(db, chunks, q, range, 5, n - 1, prefix, 7);
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(MemoryStoreError);
      expect((error as Error).message).toBe(
        `search: more than ${n - 1} indexed items under namespace prefix ${JSON.stringify(prefix)} (maxSearchItems); search a narrower prefix, raise maxSearchItems, or use PostgresMemoryStore (pgvector index)`,
      );
    }
    await store.close();
    db.close();
  });

  it("orders ties in SQLite's byte order (a key above U+FFFF after one from U+E000), as the search with a filter does", async () => {
    const db = new Database(":memory:");
    const store = new SqliteMemoryStore({ database: db, index: index16(), now });
    for (const key of ["b", "a\u{10000}", "a\uE000", "a"]) {
      await store.put(["t"], key, { text: "same words", kind: "k" });
    }
    const keys = ["a", "a\uE000", "a\u{10000}", "b"];
    expect((await store.search(["t"], { query: "same words" })).map((i) => i.key)).toEqual(keys);
    const filtered = await store.search(["t"], { query: "same words", filter: { kind: "k" } });
    expect(filtered.map((i) => i.key)).toEqual(keys);
    await store.close();
    db.close();
  });

  it("a vector of other dimensions: not read in chunks, but scored in SQL as before (a null score, last)", async () => {
    const db = new Database(":memory:");
    const store = new SqliteMemoryStore({ database: db, index: index16(), now });
    for (const k of ["a", "b", "c"]) await store.put(["odd"], k, { text: `w1 ${k}` });
    const chunks = prepareChunks(db, "memory_");
    const [q] = (await embedChecked(index16(), ["w1"])) as [Float32Array];
    const range = { lo: "odd\u001f", hi: "odd ", now: now() };
    expect(chunkedSearch(db, chunks, q, range, 10, 10, ["odd"])!.length).toBe(3);
    for (const blob of ["x'010203'", "x'01020304'"]) {
      db.prepare(`UPDATE memory_vectors SET embedding = ${blob} WHERE key = 'b'`).run();
      expect(chunkedSearch(db, chunks, q, range, 10, 10, ["odd"])).toBe(null);
      const found = await store.search(["odd"], { query: "w1" });
      expect(found.map((i) => [i.key, i.score])).toEqual([
        ["a", 0.7071067690849304],
        ["c", 0.7071067690849304],
        ["b", null],
      ]);
    }
    await store.close();
    db.close();
  });

  it("is not used on a UTF-16 database (group_concat would read the blobs as text): the search scores in SQL", async () => {
    const db = new Database(":memory:");
    db.pragma("encoding = 'UTF-16le'");
    const store = new SqliteMemoryStore({ database: db, index: index16(), now });
    expect(chunkedSearchWorks(db)).toBe(false);
    const oracle = new InMemoryStore({ index: index16(), now });
    for (let i = 0; i < 40; i++) {
      await store.put(["u"], `k${i}`, { text: `w${i % 7} v${i % 3}` });
      await oracle.put(["u"], `k${i}`, { text: `w${i % 7} v${i % 3}` });
    }
    const options = { query: "w3 v1", limit: 12 };
    expect(await store.search(["u"], options)).toEqual(await oracle.search(["u"], options));
    await store.close();
    db.close();
  });
});
