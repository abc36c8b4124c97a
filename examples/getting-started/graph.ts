import { defineState, END, Graph, node, reducer, START } from "nodestep";
import { z } from "zod";

// The state: `topic` is a plain field (last write wins); `notes` has a reducer that appends.
const State = defineState({
  topic: z.string().default(""),
  notes: reducer(z.array(z.string()).default([]), (old: string[], add: string[]) => [
    ...old,
    ...add,
  ]),
});
type S = typeof State.State; // { topic: string; notes: string[] }

const research = node((s: S) => ({ notes: [`facts about ${s.topic}`] }), { name: "research" });
const write = node((s: S) => ({ notes: [`a draft from ${s.notes.length} note(s)`] }), {
  name: "write",
});

const graph = new Graph(State).flow(START.to(research), research.to(write), write.to(END));

const { state } = await graph.invoke({ topic: "green tea" });
console.log(state.notes);
