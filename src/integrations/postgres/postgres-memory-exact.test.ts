import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { HashEmbeddings } from "../../memory/hash-embeddings.js";
import { InMemoryStore } from "../../memory/in-memory-store.js";
import type { SearchOptions } from "../../memory/types.js";
import { PostgresMemoryStore } from "./index.js";

const URL = "postgres://postgres@127.0.0.1:5432/test";
const schema = `nodestep_memexact_${randomBytes(4).toString("hex")}`;
const admin = new pg.Pool({ connectionString: URL, max: 1 });
afterAll(async () => {
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
});

const index16 = () => ({
  embeddings: new HashEmbeddings({ dimensions: 16 }),
  dimensions: 16,
  fields: ["text"],
});

describe("PostgresMemoryStore exact search (rows scored as they arrive)", () => {
  it("finds what InMemoryStore finds, to the last bit of each score: ties in namespace and key order, prefixes (empty, of no items), filters, offsets", async () => {
    const now = () => 1_000_000;
    const store = new PostgresMemoryStore({
      connectionString: URL,
      schema,
      index: index16(),
      vectorIndex: "exact",
      now,
    });
    const oracle = new InMemoryStore({ index: index16(), now });
    for (let i = 0; i < 400; i++) {
      // Two words a text, many texts alike: exact ties, ordered by namespace and key.
      const value = { text: `w${i % 23} v${i % 11}`, n: i, kind: i % 3 === 0 ? "a" : "b" };
      const ns = i % 5 === 4 ? ["doc"] : ["docs", `g${i % 4}`];
      await store.put(ns, `d${i}`, value);
      await oracle.put(ns, `d${i}`, value);
    }
    await store.put(["docs", "g0"], "plain", { text: "w1 v1" }, { index: false });
    await oracle.put(["docs", "g0"], "plain", { text: "w1 v1" }, { index: false });
    const cases: [string[], SearchOptions][] = [
      [["docs"], { query: "w1 v1", limit: 10 }],
      [["docs"], { query: "w5", limit: 25, offset: 7 }],
      [["doc"], { query: "w5", limit: 25 }],
      [["docs", "g2"], { query: "w2 v3", limit: 12 }],
      [[], { query: "v4", limit: 30, filter: { kind: "a" } }],
      [[], { query: "w3 v3", limit: 1000 }],
      [["docs"], { query: "w7 v7", limit: 5, offset: 3, filter: { n: { $gte: 200 } } }],
      [["docs", "g1"], { query: "w9", limit: 50, filter: { kind: "b", n: { $lt: 100 } } }],
      [["nothing"], { query: "w1" }],
      [["docs"], { query: "w1", offset: 500 }],
    ];
    for (const [p, options] of cases) {
      expect(await store.search(p, options)).toEqual(await oracle.search(p, options));
    }
    expect((await store.search([], { query: "w3 v3", limit: 1000 })).length).toBe(400);
    const ties = await store.search(["docs"], { query: "w1 v1", limit: 4 });
    // Two texts alike the query (namespace order), then the first two of many at 0.5 (key
    // order; the limit cuts the tie).
    expect(ties.map((i) => [i.namespace[1], i.key, i.value.text])).toEqual([
      ["g0", "d208", "w1 v10"],
      ["g1", "d1", "w1 v1"],
      ["g0", "d100", "w8 v1"],
      ["g0", "d116", "w1 v6"],
    ]);
    expect(ties.map((i) => Math.round(i.score! * 1e5) / 1e5)).toEqual([1, 1, 0.5, 0.5]);
    await store.close();
    await oracle.close();
  });

  it("a stored blob of other dimensions: scored as before (not whole floats throw the RangeError), the store still works", async () => {
    const store = new PostgresMemoryStore({
      connectionString: URL,
      schema,
      index: index16(),
      vectorIndex: "exact",
    });
    await store.put(["odd"], "a", { text: "w1" });
    await store.put(["odd"], "b", { text: "w2" });
    await admin.query(
      `UPDATE "${schema}".memory_items SET embedding_f32 = '\\x010203' WHERE ns = $1 AND key = 'b'`,
      ["odd\u001f"],
    );
    const error = await store.search(["odd"], { query: "w1" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RangeError);
    expect((error as Error).message).toBe("byte length of Float32Array should be a multiple of 4");
    await store.delete(["odd"], "b");
    expect((await store.search(["odd"], { query: "w1" })).map((i) => i.key)).toEqual(["a"]);
    await store.close();
  });
});
