// Describe a graph as JSON, draw it, and build it back from the JSON through a resolver
// that can reach only the modules it is given.

import { END, Graph, node, START, when } from "nodestep";
import * as nodes from "./nodes.js";
import { TicketState } from "./state.js";

const escalate = node(nodes.escalate, { ref: "./nodes.js#escalate", goto: [END] });
const reply = node(nodes.reply, { ref: "./nodes.js#reply" });
const triage = node(nodes.triage, { ref: "./nodes.js#triage", timeoutMs: 2000 });

const graph = new Graph(TicketState, { name: "support" }).flow(
  START.to(triage),
  triage.to(when(nodes.isUrgent, escalate, { otherwise: reply, ref: "./nodes.js#isUrgent" })),
  reply.to(END),
);

const text = JSON.stringify(graph.toSpec());
console.log(text);
console.log(graph.toMermaid());

// Only what this map holds can be reached from the spec.
const modules: Record<string, Record<string, unknown>> = { "./nodes.js": nodes };
const resolve = (ref: string) => {
  const [module = "", name = "default"] = ref.split("#");
  const found = modules[module]?.[name];
  if (typeof found !== "function") throw new Error(`unknown ref ${ref}`);
  return found;
};
const rebuilt = await Graph.fromSpec(JSON.parse(text), { state: TicketState, resolve });
console.log("same spec:", JSON.stringify(rebuilt.toSpec()) === text);
const { state } = await rebuilt.invoke({ text: "the mug arrived broken" });
console.log(state.priority, state.log);
