// Map-reduce fan-in: a join waits for the mappers and a slower branch; a deferred node
// finalizes once nothing else is left to run.

import { defineState, END, Graph, join, node, reducer, Send, START } from "nodestep";
import { z } from "zod";

const State = defineState({
  words: z.array(z.string()).default([]),
  word: z.string().default(""),
  counts: reducer(z.array(z.number()).default([]), (a: number[], b: number[]) => [...a, ...b]),
  meta: z.string().default(""),
  log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
});
type S = typeof State.State;

// The map side: one task per word.
const split = node((s: S) => s.words.map((word) => new Send("count", { word })), {
  name: "split",
  goto: ["count"],
});
const count = node((s: S) => ({ counts: [s.word.length] }), { name: "count" });
// A slower branch of two steps.
const fetchMeta = node(() => ({ meta: "fetched" }), { name: "fetchMeta" });
const checkMeta = node((s: S) => ({ meta: `${s.meta}+checked` }), { name: "checkMeta" });
// The fan-in: runs once both the mappers and the slow branch have finished.
const reduce = node(
  (s: S, ctx) => ({
    log: [`reduce@${ctx.step}: ${s.counts.reduce((a, b) => a + b, 0)} (${s.meta})`],
  }),
  { name: "reduce" },
);
// Deferred: scheduled by two branches, runs once, when nothing else is pending.
const audit = node((s: S, ctx) => ({ log: [`audit@${ctx.step}: ${s.log.length} entries`] }), {
  name: "audit",
  defer: true,
});

const graph = new Graph(State).flow(
  START.to([split, fetchMeta]),
  fetchMeta.to([checkMeta, audit]),
  join(count, checkMeta).to(reduce),
  reduce.to(audit),
  audit.to(END),
);

const r = await graph.invoke({ words: ["map", "reduce", "fan-in"] });
console.log(r.state.counts.join(","));
for (const line of r.state.log) console.log(line);
console.log(
  graph
    .toMermaid()
    .split("\n")
    .filter((l) => l.includes("join") || l.includes("deferred"))
    .join("\n"),
);
