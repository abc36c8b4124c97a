/**
 * Issue 13, item 11: data nested past the limit, entering through invoke input, resume
 * answers and state updates, ends in the typed error of that place, never a RangeError.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { caught } from "../../test/helpers.js";
import { StateStoreError } from "../errors/index.js";
import { Graph } from "../graph/graph.js";
import { node, START } from "../graph/node.js";
import { END } from "../graph/routing.js";
import { defineState } from "../state/define-state.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import { MAX_JSON_DEPTH, tooDeep } from "./index.js";

function nest(levels: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
}

const State = defineState({ data: z.unknown().default(null), answer: z.unknown().default(null) });

describe("deep JSON", () => {
  it("tooDeep finds the first container past the limit without recursion", () => {
    expect(MAX_JSON_DEPTH).toBe(512);
    expect(tooDeep(nest(512))).toBeNull();
    expect(tooDeep(nest(513), 512, "x")).toBe(`x${".a".repeat(512)}`);
    expect(tooDeep(nest(100_000))).not.toBeNull();
    expect(tooDeep([[1], [[2]]], 2)).toBe("[1][0]");
  });

  it("invoke input nested too deep: StateStoreError naming the field, thread untouched", async () => {
    const store = new MemoryStateStore();
    const n = node(() => ({}), { name: "n" });
    const g = new Graph(State, { stateStore: store }).flow(START.to(n), n.to(END));
    const e = await caught(() => g.invoke({ data: nest(5000) }, { threadId: "t" }));
    expect(e).toBeInstanceOf(StateStoreError);
    expect(e.message).toMatch(
      /^Cannot store the update of the run input[^:]*: data(\.a){576} is not JSON \(the value is nested deeper than 576 levels \(the limit\)\)$/,
    );
    expect(await store.read("t", "main")).toEqual([]);
  });

  it("a state update nested too deep: StateStoreError naming the node", async () => {
    const n = node(() => ({ data: nest(5000) }), { name: "n" });
    const g = new Graph(State).flow(START.to(n), n.to(END));
    const e = await caught(() => g.invoke({}));
    expect(e).toBeInstanceOf(StateStoreError);
    expect(e.message).toMatch(
      /^Cannot store the update of node "n": data(\.a){576} is not JSON \(the value is nested deeper than 576 levels \(the limit\)\)$/,
    );
  });

  it("a resume answer nested too deep: StateStoreError, the thread still waits", async () => {
    const store = new MemoryStateStore();
    const ask = node((_s, ctx) => ({ answer: ctx.interrupt("q", { key: "k" }) as unknown }), {
      name: "ask",
    });
    const g = new Graph(State, { stateStore: store }).flow(START.to(ask), ask.to(END));
    await g.invoke({}, { threadId: "t" });
    const e = await caught(() =>
      g.invoke(null, { threadId: "t", resume: { k: nest(5000) as never } }),
    );
    expect(e).toBeInstanceOf(StateStoreError);
    expect(e.message).toContain("nested deeper than");
    expect((await g.getState("t")).interrupts.map((i) => i.key)).toEqual(["k"]);
  });
});
