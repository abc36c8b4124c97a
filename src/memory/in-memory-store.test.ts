import { describe, expect, it } from "vitest";
import { MemoryStoreError } from "../errors/index.js";
import { HashEmbeddings } from "./hash-embeddings.js";
import { InMemoryStore } from "./in-memory-store.js";
import { describeMemoryStoreContract } from "./testing/contract.js";

describeMemoryStoreContract("InMemoryStore", async (options) => new InMemoryStore(options));

describe("InMemoryStore", () => {
  it("refuses a query over more indexed items than maxSearchItems", async () => {
    const embeddings = new HashEmbeddings({ dimensions: 8 });
    const store = new InMemoryStore({ index: { embeddings, dimensions: 8 }, maxSearchItems: 2 });
    for (const k of ["a", "b", "c"]) await store.put(["n"], k, { text: k });
    expect(await store.search(["n", "x"], { query: "a" })).toEqual([]);
    const error = await store.search(["n"], { query: "a" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MemoryStoreError);
    expect((error as Error).message).toBe(
      'search: more than 2 indexed items under namespace prefix ["n"] (maxSearchItems); search a narrower prefix, raise maxSearchItems, or use PostgresMemoryStore (pgvector index)',
    );
  });

  it("keeps only the best offset + limit while it scans, in the same order as a full sort", async () => {
    const embeddings = new HashEmbeddings({ dimensions: 8 });
    const store = new InMemoryStore({ index: { embeddings, dimensions: 8, fields: ["text"] } });
    const texts = Array.from({ length: 300 }, (_, i) => `w${i % 17} w${i % 5} w${i % 11}`);
    for (let i = 0; i < texts.length; i++)
      await store.put(["n"], `k${String(i).padStart(3, "0")}`, { text: texts[i]! });
    const all = await store.search(["n"], { query: "w3 w4", limit: 1000, filter: {} });
    expect(all.length).toBe(300);
    const page = await store.search(["n"], { query: "w3 w4", limit: 7, offset: 4 });
    expect(page.map((i) => [i.key, i.score])).toEqual(
      all.slice(4, 11).map((i) => [i.key, i.score]),
    );
    for (let i = 1; i < all.length; i++) {
      const a = all[i - 1]!;
      const b = all[i]!;
      expect(a.score! > b.score! || (a.score === b.score && a.key < b.key)).toBe(true);
    }
  });

  it("refuses bad options", () => {
    expect(() => new InMemoryStore({ maxSearchItems: 0 })).toThrow(
      new MemoryStoreError("InMemoryStore: maxSearchItems must be a positive whole number, got 0"),
    );
    expect(
      () => new InMemoryStore({ index: { embeddings: new HashEmbeddings(), dimensions: 5000 } }),
    ).toThrow("InMemoryStore: index.dimensions must be a whole number from 1 to 4096, got 5000");
  });
});
