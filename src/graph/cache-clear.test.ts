import { describe, expect, it } from "vitest";
import { z } from "zod";
import { expectError } from "../../test/helpers.js";
import { GraphConfigError, ValueError } from "../errors/index.js";
import { defineState } from "../state/define-state.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import { Graph } from "./graph.js";
import { node, START } from "./node.js";
import { type NodeCache, nodeCachePrefix, StoreNodeCache } from "./policies.js";
import { END } from "./routing.js";
import type { StreamEvent } from "./types.js";

const State = defineState({
  q: z.string().default(""),
  a: z.string().default(""),
  b: z.string().default(""),
});
type S = typeof State.State;

function build(calls: string[], nodeCache?: NodeCache) {
  const a = node(
    (s: S) => {
      calls.push("a");
      return { a: s.q.toUpperCase() };
    },
    { name: "a", cache: {} },
  );
  const b = node(
    (s: S) => {
      calls.push("b");
      return { b: `${s.q}!` };
    },
    { name: "b.x", cache: {} },
  );
  return new Graph(State, { name: "g", ...(nodeCache ? { nodeCache } : {}) }).flow(
    START.to(a),
    a.to(b),
    b.to(END),
  );
}

async function updates(g: Graph<typeof State>) {
  const events: StreamEvent[] = [];
  await g.invoke({ q: "hi" }, { onEvent: (e) => events.push(e), modes: ["updates"] });
  return events.map((e) => [e.node, e.data, e.cached ?? false]);
}

for (const kind of ["memory", "store"] as const) {
  describe(`clearCache (${kind} cache)`, () => {
    const cache = () =>
      kind === "memory" ? undefined : new StoreNodeCache(new MemoryStateStore());

    it("updates events mark cached results; clearCache(nodes) drops only those nodes' entries", async () => {
      const calls: string[] = [];
      const g = build(calls, cache());
      expect(await updates(g)).toEqual([
        ["a", { a: "HI" }, false],
        ["b.x", { b: "hi!" }, false],
      ]);
      expect(await updates(g)).toEqual([
        ["a", { a: "HI" }, true],
        ["b.x", { b: "hi!" }, true],
      ]);
      await g.clearCache(["b.x"]);
      expect(await updates(g)).toEqual([
        ["a", { a: "HI" }, true],
        ["b.x", { b: "hi!" }, false],
      ]);
      await g.clearCache();
      await updates(g);
      expect(calls).toEqual(["a", "b", "b", "a", "b"]);
    });
  });
}

describe("clearCache errors", () => {
  it("refuses unknown nodes and a cache that cannot clear", async () => {
    const g = build([]);
    await expectError(
      () => g.clearCache(["zz"]),
      ValueError,
      'Graph "g": clearCache names node "zz", which is not in the flow; known nodes: a, b.x',
    );
    const noClear: NodeCache = { get: async () => null, set: async () => {} };
    await expectError(
      () => build([], noClear).clearCache(),
      GraphConfigError,
      'Graph "g": its nodeCache has no clear(prefix) method, so clearCache cannot drop entries',
    );
    expect([nodeCachePrefix("g"), nodeCachePrefix("a/b", "c:d")]).toEqual(["g/", "a%2Fb/c%3Ad/"]);
  });
});

describe("clearCache's argument", () => {
  it("refuses a node name given as a string, not in a list, and any other non-list", async () => {
    const g = build([]);
    const message = (got: string) =>
      `Graph "g": clearCache(nodes) takes a list of node names (or nothing, for every node), got ${got}`;
    // A string was read as its characters: "a" cleared node "a", "b.x" named node "b".
    await expectError(() => g.clearCache("a" as never), TypeError, message("a string (a)"));
    await expectError(() => g.clearCache("b.x" as never), TypeError, message("a string (b.x)"));
    await expectError(() => g.clearCache(null as never), TypeError, message("null"));
    await expectError(
      () => g.clearCache([5] as never),
      TypeError,
      message("a list holding a number (5)"),
    );
  });
});
