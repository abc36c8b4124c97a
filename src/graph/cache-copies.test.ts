import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineState } from "../state/define-state.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import { Graph } from "./graph.js";
import { node, START } from "./node.js";
import { MemoryNodeCache, type NodeCache, StoreNodeCache } from "./policies.js";
import { END } from "./routing.js";
import type { StreamEvent } from "./types.js";

// A cache hit gives exactly what the node returned when it ran: nothing the run, its nodes,
// the node itself or the caller does to their objects afterwards reaches the cached entry.

const State = defineState({
  q: z.string().default(""),
  doc: z
    .object({ n: z.number(), tags: z.array(z.string()) })
    .nullable()
    .default(null),
  seen: z.string().default(""),
});
type S = typeof State.State;

const caches = {
  memory: () => new MemoryNodeCache(),
  store: () => new StoreNodeCache(new MemoryStateStore()),
} satisfies Record<string, () => NodeCache>;

/** `a` (cached) makes `doc`; `b` reads it and pushes a tag onto it in place. */
function build(nodeCache: NodeCache, stateStore: MemoryStateStore | null, calls: string[]) {
  const a = node(
    (s: S) => {
      calls.push("a");
      return { doc: { n: s.q.length, tags: ["a"] } };
    },
    { name: "a", cache: {} },
  );
  const b = node(
    (s: S) => {
      const seen = JSON.stringify(s.doc);
      s.doc?.tags.push("b");
      return { seen };
    },
    { name: "b" },
  );
  return new Graph(State, { nodeCache, ...(stateStore ? { stateStore } : {}) }).flow(
    START.to(a),
    a.to(b),
    b.to(END),
  );
}

for (const [kind, make] of Object.entries(caches)) {
  for (const withStore of [false, true]) {
    describe(`node cache hits (${kind} cache, ${withStore ? "memory store" : "no store"})`, () => {
      const thread = (id: string) => (withStore ? { threadId: id } : {});

      it("a later node changing the cached field's objects in place does not change the entry", async () => {
        const calls: string[] = [];
        const g = build(make(), withStore ? new MemoryStateStore() : null, calls);
        const first = await g.invoke({ q: "hi" }, thread("t1"));
        const second = await g.invoke({ q: "hi" }, thread("t2"));
        expect(calls).toEqual(["a"]);
        for (const r of [first, second]) {
          expect(r.state).toEqual({
            q: "hi",
            doc: { n: 2, tags: ["a", "b"] },
            seen: '{"n":2,"tags":["a"]}',
          });
        }
      });

      it("the caller changing a result's objects does not change the entry", async () => {
        const calls: string[] = [];
        const g = build(make(), withStore ? new MemoryStateStore() : null, calls);
        const first = await g.invoke({ q: "hi" }, thread("t1"));
        first.state.doc?.tags.push("caller");
        const second = await g.invoke({ q: "hi" }, thread("t2"));
        second.state.doc?.tags.push("caller");
        const third = await g.invoke({ q: "hi" }, thread("t3"));
        expect(calls).toEqual(["a"]);
        expect(third.state.seen).toBe('{"n":2,"tags":["a"]}');
        expect(third.state.doc).toEqual({ n: 2, tags: ["a", "b"] });
      });

      it("a stream listener changing a hit's update does not change the entry", async () => {
        const g = build(make(), withStore ? new MemoryStateStore() : null, []);
        const onEvent = (e: StreamEvent) => {
          const doc = (e.data as { doc?: { tags: string[] } }).doc;
          doc?.tags.push("listener");
        };
        for (const id of ["t1", "t2", "t3"]) {
          await g.invoke({ q: "hi" }, { ...thread(id), modes: ["updates"], onEvent });
        }
        const last = await g.invoke({ q: "hi" }, thread("t4"));
        expect(last.state.seen).toBe('{"n":2,"tags":["a"]}');
      });
    });
  }
}

describe("node cache hits of a plain-object state", () => {
  for (const [kind, make] of Object.entries(caches)) {
    it(`the node changing the update it returned, after returning it, does not change the entry (${kind} cache)`, async () => {
      // A state without a definition keeps the values a node returns as they are.
      let kept: { doc: { tags: string[] } } | null = null;
      const a = node(
        () => {
          kept = { doc: { tags: ["a"] } };
          return kept;
        },
        { name: "a", cache: {} },
      );
      const g = new Graph(null, {
        nodeCache: make(),
        stateStore: new MemoryStateStore(),
      }).flow(START.to(a), a.to(END));
      expect((await g.invoke({ q: "hi" }, { threadId: "t1" })).state).toEqual({
        q: "hi",
        doc: { tags: ["a"] },
      });
      (kept as unknown as { doc: { tags: string[] } }).doc.tags.push("later");
      expect((await g.invoke({ q: "hi" }, { threadId: "t2" })).state).toEqual({
        q: "hi",
        doc: { tags: ["a"] },
      });
    });
  }
});
