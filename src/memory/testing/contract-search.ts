/**
 * The semantic-search part of the `MemoryStore` contract suite: scores and order of a search
 * by meaning, which fields are embedded and when, and vectors of the wrong shape.
 * {@link describeMemoryStoreContract} registers it.
 *
 * @module
 */
import { expect, it } from "vitest";
import { MemoryStoreError } from "../../errors/index.js";
import { HashEmbeddings } from "../hash-embeddings.js";
import type { IndexConfig, MemoryStore } from "../types.js";

/** What the tests need from the suite: a new store and a reopen on the same data, with an index. */
export interface SearchContractHarness {
  make(index?: IndexConfig): Promise<MemoryStore>;
  reopen(store: MemoryStore, index?: IndexConfig): Promise<MemoryStore | null>;
}

/** Hash embeddings of 32 dimensions, and an index of `fields` over them. */
function indexed(fields: string[] = ["text"]) {
  const embeddings = new HashEmbeddings({ dimensions: 32 });
  return { embeddings, index: { embeddings, dimensions: 32, fields } };
}

/** Register the tests (inside the suite's `describe`). */
export function searchContract(h: SearchContractHarness): void {
  it("searches by meaning under a prefix: scores, order, filter, offset, unindexed items", async () => {
    const { embeddings, index } = indexed();
    const store = await h.make(index);
    await store.put(["u1"], "tea", { text: "the user likes green tea", kind: "pref" });
    await store.put(["u1"], "job", { text: "the user works as a pilot", kind: "fact" });
    await store.put(["u1"], "city", { text: "lives in Oslo", kind: "fact" });
    await store.put(["u1"], "secret", { text: "green tea secret" }, { index: false });
    await store.put(["u1"], "untexted", { other: "green tea" });
    await store.put(["u2"], "tea", { text: "green tea every morning", kind: "pref" });
    const found = await store.search(["u1"], { query: "green tea", limit: 5 });
    expect(found[0]!.key).toBe("tea");
    const q = embeddings.vector("green tea");
    const cos = (a: number[], b: number[]) => {
      let d = 0;
      let na = 0;
      let nb = 0;
      for (let i = 0; i < a.length; i++) {
        d += a[i]! * b[i]!;
        na += a[i]! * a[i]!;
        nb += b[i]! * b[i]!;
      }
      return d / Math.sqrt(na * nb);
    };
    const expected = ["tea", "job", "city"]
      .map((k, i) => ({
        key: k,
        score: cos(
          q,
          embeddings.vector(
            ["the user likes green tea", "the user works as a pilot", "lives in Oslo"][i]!,
          ),
        ),
      }))
      .sort((a, b) => b.score - a.score || (a.key < b.key ? -1 : 1));
    expect(found.map((i) => i.key)).toEqual(expected.map((e) => e.key));
    for (let i = 0; i < found.length; i++)
      expect(found[i]!.score).toBeCloseTo(expected[i]!.score, 5);
    expect(found[0]).toMatchObject({
      namespace: ["u1"],
      value: { text: "the user likes green tea", kind: "pref" },
      createdAt: 1_000_000,
      expiresAt: null,
    });
    const facts = await store.search(["u1"], { query: "green tea", filter: { kind: "fact" } });
    expect(facts.map((i) => i.key)).toEqual(
      expected.filter((e) => e.key !== "tea").map((e) => e.key),
    );
    const second = await store.search(["u1"], { query: "green tea", offset: 1, limit: 1 });
    expect(second.map((i) => i.key)).toEqual([expected[1]!.key]);
    const all = await store.search([], { query: "green tea", limit: 2 });
    expect(all.map((i) => `${i.namespace[0]}:${i.key}`).sort()).toEqual(["u1:tea", "u2:tea"]);
  });

  it("embeds the chosen fields, and again only when the embedded text changes", async () => {
    const { embeddings, index } = indexed(["text"]);
    const store = await h.make(index);
    await store.put(["n"], "a", { text: "alpha", n: 1 });
    await store.put(["n"], "a", { text: "alpha", n: 2 });
    await store.put(["n"], "b", { title: "beta", body: "gamma" }, { index: ["title", "body"] });
    await store.put(["n"], "a", { text: "delta", n: 3 });
    expect(embeddings.calls).toEqual([["alpha"], ["beta\ngamma"], ["delta"]]);
    const hit = await store.search(["n"], { query: "gamma", limit: 1 });
    expect(hit.map((i) => i.key)).toEqual(["b"]);
    expect(hit[0]!.score).toBeCloseTo(
      (() => {
        const a = embeddings.vector("gamma");
        const b = embeddings.vector("beta\ngamma");
        let d = 0;
        let na = 0;
        let nb = 0;
        for (let i = 0; i < a.length; i++) {
          d += a[i]! * b[i]!;
          na += a[i]! ** 2;
          nb += b[i]! ** 2;
        }
        return d / Math.sqrt(na * nb);
      })(),
      5,
    );
    await store.put(["n"], "a", { text: "delta", n: 4 }, { index: false });
    expect((await store.search(["n"], { query: "delta" })).map((i) => i.key)).toEqual(["b"]);
    const reopened = await h.reopen(store, index);
    if (reopened) {
      embeddings.calls.length = 0;
      await reopened.put(
        ["n"],
        "b",
        { title: "beta", body: "gamma", extra: true },
        { index: ["title", "body"] },
      );
      expect(embeddings.calls).toEqual([]);
      expect(
        (await reopened.search(["n"], { query: "gamma", limit: 1 })).map((i) => i.key),
      ).toEqual(["b"]);
      expect(embeddings.calls).toEqual([["gamma"]]);
      expect(await reopened.get(["n"], "b")).toEqual({
        namespace: ["n"],
        key: "b",
        value: { title: "beta", body: "gamma", extra: true },
        createdAt: 1_000_000,
        updatedAt: 1_000_000,
        expiresAt: null,
      });
    }
  });

  it("refuses vectors of the wrong shape and writes nothing", async () => {
    const bad = {
      async embed(texts: string[]) {
        return texts.map(() => [1, 2]);
      },
    };
    const store = await h.make({ embeddings: bad, dimensions: 3, fields: ["text"] });
    const error = await store.put(["a"], "k", { text: "x" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MemoryStoreError);
    expect((error as Error).message).toBe(
      "The embeddings returned a vector of 2 dimensions for text 0; the store's index has 3",
    );
    expect(await store.get(["a"], "k")).toBeNull();
    const failing = await h.make({
      embeddings: {
        async embed() {
          throw new Error("provider down");
        },
      },
      dimensions: 3,
    });
    const e2 = await failing.put(["a"], "k", { text: "x" }).catch((e: unknown) => e);
    expect((e2 as Error).message).toBe("The embeddings failed for 1 text(s): provider down");
  });
}
