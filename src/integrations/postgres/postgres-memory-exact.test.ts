import { describe, expect, it } from "vitest";
import { InMemoryStore } from "../../memory/in-memory-store.js";
import {
  expectSameSearches,
  expectTies,
  index16,
  PLAIN_SEARCHES,
  putAlike,
} from "../../memory/search-oracle.fixture.js";
import { PostgresMemoryStore } from "./index.js";
import { testSchemas } from "./test-schemas.fixture.js";

const { url: URL, admin, prefix: schema } = testSchemas("memexact", 1);

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
    await putAlike([store, oracle], 400);
    await expectSameSearches(store, oracle, [
      ...PLAIN_SEARCHES,
      [[], { query: "v4", limit: 30, filter: { kind: "a" } }],
      [["docs"], { query: "w7 v7", limit: 5, offset: 3, filter: { n: { $gte: 200 } } }],
      [["docs", "g1"], { query: "w9", limit: 50, filter: { kind: "b", n: { $lt: 100 } } }],
    ]);
    expect((await store.search([], { query: "w3 v3", limit: 1000 })).length).toBe(400);
    await expectTies(store);
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
