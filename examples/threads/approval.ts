// A thread that pauses for a person and resumes with the answer.

import { defineState, END, Graph, MemoryStateStore, node, START } from "nodestep";
import { z } from "zod";

const State = defineState({
  amount: z.number().default(0),
  status: z.string().default("new"),
});
type S = typeof State.State;

const review = node(
  (s: S, ctx) => {
    if (s.amount <= 100) return { status: "auto-approved" };
    const answer = ctx.interrupt({ question: `Refund ${s.amount} EUR?` }, { key: "refund" });
    return { status: answer === "yes" ? "approved" : "rejected" };
  },
  { name: "review" },
);

const graph = new Graph(State, { stateStore: new MemoryStateStore() }).flow(
  START.to(review),
  review.to(END),
);

const paused = await graph.invoke({ amount: 250 }, { threadId: "refund-42" });
console.log(paused.status, JSON.stringify(paused.interrupts[0]));

const done = await graph.invoke(null, { threadId: "refund-42", resume: { refund: "yes" } });
console.log(done.status, done.state.status);
