// A graph as a node of another: a "review" child that asks a person, mapped in and out with
// stateIn/stateOut, on a "fresh" thread. The child's interrupt pauses the parent under
// "<task id>/<child key>"; answering it resumes the child where it paused.

import { defineState, END, Graph, MemoryStateStore, node, START, subgraph } from "nodestep";
import { z } from "zod";

const Review = defineState({
  amount: z.number().default(0),
  verdict: z.string().default(""),
});
type Review = typeof Review.State;

const ask = node(
  (s: Review, ctx) => {
    const answer = ctx.interrupt({ question: `Refund ${s.amount} EUR?` }, { key: "approve" });
    return { verdict: answer === "yes" ? "approved" : "rejected" };
  },
  { name: "ask" },
);
const review = new Graph(Review, { name: "review" }).flow(START.to(ask), ask.to(END));

const Refund = defineState({
  amount: z.number().default(0),
  status: z.string().default("open"),
});
type Refund = typeof Refund.State;

const reviewNode = subgraph<Refund, Review>("review", review, {
  stateIn: (p) => ({ amount: p.amount }),
  stateOut: (c) => ({ status: c.verdict }),
  childThread: "fresh",
});
const store = new MemoryStateStore();
const refund = new Graph(Refund, { name: "refund", stateStore: store }).flow(
  START.to(reviewNode),
  reviewNode.to(END),
);

const paused = await refund.invoke({ amount: 250 }, { threadId: "r-1" });
console.log(paused.status, JSON.stringify(paused.interrupts[0]));
const done = await refund.invoke(null, { threadId: "r-1", resume: { "0:0/approve": "yes" } });
console.log(done.status, done.state.status);
const threads = (await store.listThreads()).map((t) =>
  t.threadId.replace(/[0-9a-f]{12}$/, "<hex>"),
);
console.log(threads.sort().join(" "));
