// A graph over a typed state: a reducer field, a plain field, and a conditional loop.

import { defineState, END, Graph, node, reducer, START, when } from "nodestep";
import { z } from "zod";

const State = defineState({
  count: reducer(z.number().default(0), (a: number, b: number) => a + b),
  trail: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
  done: z.boolean().default(false),
});
type S = typeof State.State;

const step = node((s: S) => ({ count: 1, trail: [`step ${s.count}`] }), { name: "step" });
const finish = node(() => ({ done: true }), { name: "finish" });

const graph = new Graph(State, { name: "counter" }).flow(
  START.to(step),
  step.to(when((s: S) => s.count < 3, step, { otherwise: finish })),
  finish.to(END),
);

const { state } = await graph.invoke({ count: 0 });
console.log(state.count, state.done);
console.log(state.trail.join(" | "));
