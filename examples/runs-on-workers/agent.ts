// The graph of the runs-on-workers example, as `nodestep serve` and `nodestep worker` load it
// (`agent.ts#buildReport`): `notes ──▶ report`, each emitting what it does.

import { defineState, END, Graph, node, START, type StateStore } from "nodestep";
import { z } from "zod";

const State = defineState({
  topic: z.string().default(""),
  notes: z.string().nullable().default(null),
  report: z.string().nullable().default(null),
});
type S = typeof State.State;

export function buildReport({ stateStore }: { stateStore: StateStore }) {
  const notes = node(
    async (s: S, ctx) => {
      await new Promise((r) => setTimeout(r, 200));
      ctx.emit({ step: "notes" });
      return { notes: `notes on ${s.topic}` };
    },
    { name: "notes" },
  );
  const report = node(
    (s: S, ctx) => {
      ctx.emit({ step: "report" });
      return { report: `${s.notes} → report` };
    },
    { name: "report" },
  );
  return new Graph(State, { name: "report", stateStore }).flow(
    START.to(notes),
    notes.to(report),
    report.to(END),
  );
}
