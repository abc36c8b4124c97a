import { describe, expect, it } from "vitest";
import { z } from "zod";
import { expectError } from "../../test/helpers.js";
import { StateUpdateError } from "../errors/index.js";
import { defineState, reducer } from "../state/define-state.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import { Graph } from "./graph.js";
import { node, START } from "./node.js";
import { END, Send } from "./routing.js";

// A run writes its own copy of the state in place from its second superstep on (commit.ts):
// what nodes, callers and the thread's cached position hold must not see those writes.

const State = defineState({
  x: z.number().default(0),
  tags: z.array(z.string()).default([]),
  log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
});
type S = typeof State.State;

function chain(store: MemoryStateStore | null, kept: S[]) {
  const a = node(
    (s: S) => {
      kept.push(s);
      return { x: s.x + 1, log: ["a"] };
    },
    { name: "a" },
  );
  const b = node(
    (s: S) => {
      kept.push(s);
      return { x: s.x + 1, tags: ["b"], log: ["b"] };
    },
    {
      name: "b",
    },
  );
  const c = node(
    (s: S) => {
      kept.push(s);
      return { x: s.x + 1, log: ["c"] };
    },
    { name: "c" },
  );
  return new Graph(State, store ? { stateStore: store } : {}).flow(
    START.to(a),
    a.to(b),
    b.to(c),
    c.to(END),
  );
}

describe("state written in place", () => {
  for (const withStore of [false, true]) {
    it(`each node keeps the state it was given (${withStore ? "memory store" : "no store"})`, async () => {
      const kept: S[] = [];
      const g = chain(withStore ? new MemoryStateStore() : null, kept);
      const r = await g.invoke({ x: 10 }, withStore ? { threadId: "t" } : {});
      expect(r.state).toEqual({ x: 13, tags: ["b"], log: ["a", "b", "c"] });
      expect(kept).toEqual([
        { x: 10, tags: [], log: [] },
        { x: 11, tags: [], log: ["a"] },
        { x: 12, tags: ["b"], log: ["a", "b"] },
      ]);
    });
  }

  it("a result, a state read and the cached position do not change with the next run", async () => {
    const store = new MemoryStateStore();
    const g = chain(store, []);
    const first = await g.invoke({ x: 0 }, { threadId: "t" });
    const read = await g.getState("t");
    await g.invoke({ x: 100 }, { threadId: "t" });
    expect(first.state).toEqual({ x: 3, tags: ["b"], log: ["a", "b", "c"] });
    expect(read.state).toEqual({ x: 3, tags: ["b"], log: ["a", "b", "c"] });
    expect((await g.getState("t")).state).toEqual({
      x: 103,
      tags: ["b"],
      log: ["a", "b", "c", "a", "b", "c"],
    });
  });

  it("a node that changes a list field of its state in place changes only its own copy", async () => {
    const seen: string[][] = [];
    const a = node(() => ({ tags: ["a"] }), { name: "a" });
    const b = node(
      (s: S) => {
        s.tags.push("pushed by b");
        seen.push([...s.tags]);
        return { x: 1 };
      },
      { name: "b" },
    );
    const c = node(
      (s: S) => {
        seen.push([...s.tags]);
        return { x: 2 };
      },
      { name: "c" },
    );
    const g = new Graph(State).flow(START.to(a), a.to(b), b.to(c), c.to(END));
    const r = await g.invoke({});
    expect(seen).toEqual([["a", "pushed by b"], ["a"]]);
    expect(r.state.tags).toEqual(["a"]);
  });

  it("a field that starts holding a list later is copied for the nodes after", async () => {
    const Loose = defineState({ v: z.union([z.number(), z.array(z.number())]).default(0) });
    type L = typeof Loose.State;
    const seen: unknown[] = [];
    const a = node(() => ({ v: 1 }), { name: "a" });
    const b = node(() => ({ v: [1, 2] }), { name: "b" });
    const c = node(
      (s: L) => {
        (s.v as number[]).push(3);
        return { v: [9] };
      },
      { name: "c" },
    );
    const d = node(
      (s: L) => {
        seen.push(s.v);
        return null;
      },
      { name: "d" },
    );
    const g = new Graph(Loose).flow(START.to(a), a.to(b), b.to(c), c.to(d), d.to(END));
    expect((await g.invoke({})).state).toEqual({ v: [9] });
    expect(seen).toEqual([[9]]);
    const e = node(
      (s: L) => {
        (s.v as number[]).push(3);
        return null;
      },
      { name: "e" },
    );
    const f = node(
      (s: L) => {
        seen.push(s.v);
        return null;
      },
      { name: "f" },
    );
    const g2 = new Graph(Loose).flow(START.to(a), a.to(b), b.to(e), e.to(f), f.to(END));
    expect((await g2.invoke({})).state).toEqual({ v: [1, 2] });
    expect(seen).toEqual([[9], [1, 2]]);
  });

  it("a no-op write in a later superstep is left out of the log, as in the first", async () => {
    const store = new MemoryStateStore();
    const same = (name: string) => node(() => ({ x: 5, tags: ["k"] }), { name });
    const [a, b, c] = [same("a"), same("b"), same("c")];
    const g = new Graph(State, { stateStore: store }).flow(
      START.to(a),
      a.to(b),
      b.to(c),
      c.to(END),
    );
    await g.invoke({}, { threadId: "t" });
    const commits = (await g.history("t"))
      .filter((e) => e.type === "step_committed")
      .map((e) => e.data);
    expect(commits).toEqual([
      { next: ["b"], update: { x: 5, tags: ["k"] } },
      { next: ["c"], update: {} },
      { next: [], update: {} },
    ]);
  });

  it("a reducer that fails in a later superstep leaves the thread at the superstep before", async () => {
    const store = new MemoryStateStore();
    const Strict = defineState({
      n: reducer(z.number().default(0), (a: number, b: number) => {
        if (a + b > 2) throw new Error(`too big: ${a + b}`);
        return a + b;
      }),
      note: z.string().default(""),
    });
    type T = typeof Strict.State;
    const inc = node((s: T) => ({ n: 1, note: `at ${s.n}` }), { name: "inc" });
    const fan = node(() => [new Send("add", { note: "x" }), new Send("add", { note: "y" })], {
      name: "fan",
      goto: ["add"],
    });
    const add = node((s: T) => ({ note: s.note, n: 1 }), { name: "add" });
    const g = new Graph(Strict, { stateStore: store }).flow(
      START.to(inc),
      inc.to(fan),
      add.to(END),
    );
    await expectError(
      () => g.invoke({}, { threadId: "t" }),
      StateUpdateError,
      'Reducer of state field "n" failed on the update of node "add": too big: 3',
    );
    const after = await g.getState("t");
    expect(after.state).toEqual({ n: 1, note: "at 0" });
    expect(after.next).toEqual(["add", "add"]);
  });
});
