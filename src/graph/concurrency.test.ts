import { describe, expect, it } from "vitest";
import { z } from "zod";
import { expectError } from "../../test/helpers.js";
import { ValueError } from "../errors/index.js";
import { defineState, reducer } from "../state/define-state.js";
import { Graph, type GraphOptions } from "./graph.js";
import { node, START } from "./node.js";
import { END, Send } from "./routing.js";

const State = defineState({
  n: z.number().default(0),
  log: reducer(z.array(z.number()).default([]), (a: number[], b: number[]) => [...a, ...b]),
});
type S = typeof State.State;

/** A fan-out of `count` Sends; task i waits (count - i) turns of the event loop, so later tasks finish first. */
function fanOut(
  count: number,
  seen: { active: number; max: number; started: number[] },
  options: GraphOptions = {},
) {
  const work = node(
    async (s: S) => {
      seen.started.push(s.n);
      seen.active++;
      seen.max = Math.max(seen.max, seen.active);
      for (let i = 0; i < count - s.n; i++) await new Promise((r) => setImmediate(r));
      seen.active--;
      return { log: [s.n] };
    },
    { name: "work" },
  );
  const split = node(() => Array.from({ length: count }, (_, i) => new Send("work", { n: i })), {
    name: "split",
    goto: [work],
  });
  return new Graph(State, options).flow(START.to(split), work.to(END));
}

const fresh = () => ({ active: 0, max: 0, started: [] as number[] });

describe("maxConcurrency", () => {
  it("runs at most N tasks at once, starts them in task order, applies updates in task order", async () => {
    const seen = fresh();
    const r = await fanOut(8, seen, { maxConcurrency: 3 }).invoke({});
    expect(seen.max).toBe(3);
    expect(seen.started).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(r.state.log).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it("a run's maxConcurrency replaces the graph's; without one, all tasks run at once", async () => {
    const one = fresh();
    await fanOut(5, one, { maxConcurrency: 3 }).invoke({}, { maxConcurrency: 1 });
    expect(one.max).toBe(1);
    const all = fresh();
    const r = await fanOut(5, all).invoke({});
    expect([all.max, r.state.log]).toEqual([5, [0, 1, 2, 3, 4]]);
  });

  it("a limit of 1 over 10,000 synchronous tasks uses no stack per task", async () => {
    // (A last-write field: an appending reducer would copy its list 10,000 times.)
    const work = node((s: S) => ({ n: s.n + 1 }), { name: "work" });
    const split = node(() => Array.from({ length: 10_000 }, (_, i) => new Send("work", { n: i })), {
      name: "split",
      goto: [work],
    });
    const g = new Graph(State, { maxConcurrency: 1 }).flow(START.to(split), work.to(END));
    const r = await g.invoke({});
    expect(r.state.n).toBe(10_000);
  });

  it("a failed task stops the superstep: no task after it starts", async () => {
    const started: number[] = [];
    const work = node(
      async (s: S) => {
        started.push(s.n);
        await Promise.resolve();
        if (s.n === 1) throw new Error("boom 1");
        return { log: [s.n] };
      },
      { name: "work" },
    );
    const split = node(() => [0, 1, 2, 3].map((n) => new Send("work", { n })), {
      name: "split",
      goto: [work],
    });
    const g = new Graph(State, { maxConcurrency: 2 }).flow(START.to(split), work.to(END));
    await expectError(() => g.invoke({}), Error, "boom 1");
    expect(started).toEqual([0, 1, 2]);
  });

  it("refuses a limit that is not a positive integer", async () => {
    expect(() => new Graph(State, { maxConcurrency: 0 })).toThrow(
      new ValueError(
        'Graph "graph": maxConcurrency must be a positive integer (tasks of a superstep at once), got 0',
      ),
    );
    const g = fanOut(2, fresh());
    await expectError(
      () => g.invoke({}, { maxConcurrency: 1.5 }),
      ValueError,
      'Graph "graph": maxConcurrency must be a positive integer (tasks of a superstep at once), got 1.5',
    );
  });
});
