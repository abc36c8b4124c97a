// Streaming a run: updates as tasks finish, custom events from ctx.emit, values after each superstep.

import { defineState, END, Graph, node, START } from "nodestep";
import { z } from "zod";

const State = defineState({ text: z.string().default(""), words: z.number().default(0) });
type S = typeof State.State;

const shout = node(
  (s: S, ctx) => {
    ctx.emit({ progress: "shouting" });
    return { text: s.text.toUpperCase() };
  },
  { name: "shout" },
);
const count = node((s: S) => ({ words: s.text.split(/\s+/).length }), { name: "count" });

const graph = new Graph(State).flow(START.to(shout), shout.to(count), count.to(END));

for await (const event of graph.stream(
  { text: "hello stream" },
  { modes: ["updates", "custom", "values"] },
)) {
  console.log(event.mode, event.step, event.node ?? "-", JSON.stringify(event.data));
}
