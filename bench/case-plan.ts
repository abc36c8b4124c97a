/**
 * The plan of `npm run bench`'s cases that run in child processes (bench/worker.ts): each
 * workload, store and size, how often each side runs it, and which of them `--only` selects.
 *
 * @module
 */
import type { StoreKind, Workload } from "./common.js";
import { ENGINE_PLAN } from "./engine-plan.js";

/** One line of the plan. */
export interface Plan {
  workload: Workload;
  store: StoreKind;
  param: number;
  /** Name in `--only` (the postgres cases answer to "postgres"). */
  group: string;
  /** LangGraph.js takes a minute or more here: run it once, and not at all with --quick. */
  slowLanggraph?: boolean;
  /**
   * LangGraph.js's figure is steady here (its 3 runs within 10% of each other in the full run
   * of 2026-12-01): run it once. nodestep still runs `--reps` times.
   */
  steadyLanggraph?: boolean;
  /** The same for nodestep (3 runs within 10%, each of several seconds): run it once. */
  steadyNodestep?: boolean;
  /** nodestep only (no LangGraph.js counterpart in the plan). */
  nodestepOnly?: boolean;
}

export const PLAN: Plan[] = [
  { workload: "loop", store: "none", param: 1000, group: "loop", steadyLanggraph: true },
  { workload: "loop", store: "none", param: 10000, group: "loop", slowLanggraph: true },
  ...(["none", "memory", "sqlite"] as const).flatMap((store): Plan[] => [
    // LangGraph.js's 3 runs of K = 50 were within 10% on memory and SQLite, 14% with no store.
    { workload: "react", store, param: 50, group: "react", steadyLanggraph: store !== "none" },
    { workload: "react", store, param: 200, group: "react" },
    { workload: "react", store, param: 1000, group: "react", slowLanggraph: true },
  ]),
  ...(["memory", "sqlite"] as const).flatMap((store): Plan[] => [
    // LangGraph.js's 3 runs were within 8% on memory, 18% on SQLite.
    { workload: "thread", store, param: 200, group: "thread", steadyLanggraph: store === "memory" },
    { workload: "thread", store, param: 1000, group: "thread", slowLanggraph: true },
  ]),
  { workload: "fanout", store: "none", param: 1000, group: "fanout", steadyLanggraph: true },
  { workload: "fanout", store: "none", param: 10000, group: "fanout", slowLanggraph: true },
  // The fan-out of 10,000 with maxConcurrency 1, 16 and 10,000 (no limit in effect); param is the limit.
  ...[1, 16, 10000].map(
    (param): Plan => ({
      workload: "fanout-limit",
      store: "none",
      param,
      group: "fanout",
      nodestepOnly: true,
    }),
  ),
  // nodestep's 3 runs of these two were within 2% and 4%.
  ...(["react", "thread"] as const).map(
    (workload): Plan => ({
      workload,
      store: "postgres",
      param: 200,
      group: "postgres",
      slowLanggraph: true,
      steadyNodestep: true,
    }),
  ),
  // Issue 3's 1,000-turn conversation on PostgreSQL (issue 20, item 3: against PostgresSaver too).
  { workload: "thread", store: "postgres", param: 1000, group: "postgres", slowLanggraph: true },
  // Issue 15: the 1,000-turn conversation with a 100 kB image every 10 turns, nodestep only.
  ...(["memory", "sqlite"] as const).map(
    (store): Plan => ({
      workload: "parts",
      store,
      param: 1000,
      group: "parts",
      nodestepOnly: true,
    }),
  ),
  // Issue 20: wide states, long graphs, many threads at once (bench/engine-plan.ts).
  ...ENGINE_PLAN,
];

/** Whether `--only` (its names; `null`: no `--only`) selects the case. */
export function selected(p: Plan, only: string[] | null): boolean {
  if (only === null) return true;
  const names = [
    p.group,
    p.workload,
    `${p.workload}/${p.store}`,
    `${p.workload}/${p.store}/${p.param}`,
  ];
  return only.some((o) => names.includes(o));
}
