// Static breakpoints: pause a thread before a node (and after another), look at the state,
// then continue past the pause with invoke(null).

import { defineState, END, Graph, MemoryStateStore, node, reducer, START } from "nodestep";
import { z } from "zod";

const State = defineState({
  steps: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
});

const draft = node(() => ({ steps: ["drafted"] }), { name: "draft" });
const review = node(() => ({ steps: ["reviewed"] }), { name: "review" });
const send = node(() => ({ steps: ["sent"] }), { name: "send" });

const graph = new Graph(State, {
  stateStore: new MemoryStateStore(),
  interruptBefore: ["send"],
}).flow(START.to(draft), draft.to(review), review.to(send), send.to(END));

// A run option adds a pause after "draft" for this run only.
const first = await graph.invoke({}, { threadId: "mail", interruptAfter: ["draft"] });
console.log(first.status, JSON.stringify(first.breakpoint), first.state.steps.join(","));

const second = await graph.invoke(null, { threadId: "mail" });
const paused = await graph.getState("mail");
console.log(second.status, JSON.stringify(paused.breakpoint), paused.next.join(","));

const done = await graph.invoke(null, { threadId: "mail" });
console.log(done.status, done.state.steps.join(","));
console.log(graph.toMermaid().split("\n")[4]);
