/**
 * A graph of 30 nodes for the graph view's tests: a triage node fanning out by named
 * conditions, three lanes of work with a retry loop each, a join, breakpoints and a deferred
 * node. Every node only passes the state on, except `triage`, which routes by `state.kind`.
 */
import { z } from "zod";
import { END, Graph, join, node, START, when } from "../../../graph/index.js";
import { defineState } from "../../../state/index.js";
import type { StateStore } from "../../../stores/types.js";

const State = defineState({
  kind: z.string().default("billing"),
  tries: z.number().default(0),
  log: z.array(z.string()).default([]),
});
type S = typeof State.State;

function isBilling(s: S) {
  return s.kind === "billing";
}
function isShipping(s: S) {
  return s.kind === "shipping";
}
function needsRetry(s: S) {
  return s.tries < 0;
}

/** Build the 30-node graph on a store. */
export function buildThirtyNodeGraph({ stateStore }: { stateStore: StateStore | null }) {
  const step = (name: string) => node((s: S) => ({ log: [...s.log, name] }), { name });
  const triage = step("triage");
  const lanes = ["billing", "shipping", "returns"].map((lane) =>
    Array.from({ length: 8 }, (_, i) =>
      step(
        `${lane}_${["intake", "lookup", "validate", "price", "draft", "review", "send", "log"][i]}`,
      ),
    ),
  );
  const merge = step("merge_results");
  const audit = step("audit_trail");
  const notify = step("notify_customer");
  const summarize = node((s: S) => ({ log: [...s.log, "summarize_thread"] }), {
    name: "summarize_thread",
    defer: true,
  });
  const archive = step("archive");
  const edges = [
    START.to(triage),
    triage.to(when(isBilling, lanes[0]![0]!, { otherwise: lanes[2]![0]! })),
    triage.to(when(isShipping, lanes[1]![0]!)),
  ];
  for (const lane of lanes) {
    for (let i = 0; i + 1 < lane.length; i++) {
      if (i === 3) edges.push(lane[i]!.to(when(needsRetry, lane[1]!, { otherwise: lane[i + 1]! })));
      else edges.push(lane[i]!.to(lane[i + 1]!));
    }
  }
  return new Graph(State, {
    name: "thirty",
    stateStore,
    interruptBefore: ["billing_send"],
    interruptAfter: ["audit_trail"],
  }).flow(
    ...edges,
    join(lanes[0]!.at(-1)!, lanes[1]!.at(-1)!).to(merge),
    lanes[2]!.at(-1)!.to(merge),
    merge.to([audit, summarize]),
    audit.to(notify),
    notify.to(archive),
    summarize.to(END),
    archive.to(END),
  );
}
