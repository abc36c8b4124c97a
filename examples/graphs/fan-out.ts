// Map-reduce with Send: one task per item, their updates merged in task order.

import { defineState, END, Graph, node, reducer, Send, START } from "nodestep";
import { z } from "zod";

const State = defineState({
  words: z.array(z.string()).default([]),
  word: z.string().nullable().default(null),
  lengths: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
});
type S = typeof State.State;

const split = node((s: S) => s.words.map((word) => new Send("measure", { word })), {
  name: "split",
  goto: ["measure"],
});
const measure = node(
  async (s: S) => {
    // Later words finish first; the merge still follows the order the tasks were scheduled.
    await new Promise((r) => setTimeout(r, 30 - 10 * s.words.indexOf(s.word ?? "")));
    return { lengths: [`${s.word}=${s.word?.length}`] };
  },
  { name: "measure" },
);

const graph = new Graph(State).flow(START.to(split), measure.to(END));
const { state } = await graph.invoke({ words: ["graph", "node", "superstep"] });
console.log(state.lengths);
