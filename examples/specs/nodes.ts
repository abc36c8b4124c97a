// The code a spec refers to: node functions and a condition, named by refs "./nodes.js#<export>".

import { Command, END } from "nodestep";
import type { Ticket } from "./state.js";

export function triage(state: Ticket) {
  return { priority: state.text.includes("broken") ? "high" : "low" };
}

export function isUrgent(state: Ticket) {
  return state.priority === "high";
}

export function escalate(_state: Ticket) {
  return new Command({ update: { log: ["escalated"] }, goto: END });
}

export function reply(_state: Ticket) {
  return { log: ["replied"] };
}
