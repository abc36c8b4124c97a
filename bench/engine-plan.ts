/**
 * Issue 20's engine workloads in `npm run bench`: their lines of the plan, units, the table of
 * the `threads` workload's memory, and the targets (bench/run.ts calls these).
 *
 * @module
 */
import type { Figures, StoreKind, Workload } from "./common.js";

/** One line of the plan (as bench/case-plan.ts's own). */
export interface EnginePlan {
  workload: Workload;
  store: StoreKind;
  param: number;
  group: string;
  slowLanggraph?: boolean;
  steadyLanggraph?: boolean;
  steadyNodestep?: boolean;
}

/**
 * wide: F = 20, 200 fields; long: N = 30, 300 nodes; threads: 1,000 threads of 10 turns.
 * wide and long are `steadyLanggraph` (LangGraph.js runs once: its 3 runs were within 8%);
 * threads `steadyNodestep` too (nodestep's 3 runs of 5–6 s were within 9%).
 */
export const ENGINE_PLAN: EnginePlan[] = [
  ...(["none", "memory", "sqlite"] as const).flatMap((store): EnginePlan[] => [
    { workload: "wide", store, param: 20, group: "wide", steadyLanggraph: true },
    { workload: "wide", store, param: 200, group: "wide", steadyLanggraph: true },
  ]),
  ...(["none", "memory"] as const).flatMap((store): EnginePlan[] => [
    { workload: "long", store, param: 30, group: "long", steadyLanggraph: true },
    { workload: "long", store, param: 300, group: "long", steadyLanggraph: true },
  ]),
  ...(["memory", "sqlite"] as const).map(
    (store): EnginePlan => ({
      workload: "threads",
      store,
      param: 1000,
      group: "threads",
      slowLanggraph: true,
      steadyNodestep: true,
    }),
  ),
];

/** The unit of an engine workload's main figure, or null for another workload. */
export function engineUnit(
  w: Workload,
): { field: "usPerStep" | "usPerTurn"; label: string } | null {
  switch (w) {
    case "wide":
      return { field: "usPerStep", label: "µs/step, 300 nodes, param = fields" };
    case "long":
      return { field: "usPerStep", label: "µs/step, param = nodes" };
    case "threads":
      return { field: "usPerTurn", label: "µs/turn (wall / all turns), 10 turns × param threads" };
    default:
      return null;
  }
}

type Side = Partial<Omit<Figures, "impl" | "workload" | "store" | "param">>;

/** What bench/run.ts keeps of a case. */
export interface EngineRow {
  workload: Workload;
  store: StoreKind;
  param: number;
  nodestep: Side | null;
  langgraph: Side | null;
  ratio: Record<string, number>;
}

/** A target: what it asks, whether it holds (null: a LangGraph.js figure is missing), the figures. */
export interface EngineCheck {
  target: string;
  holds: boolean | null;
  detail: string;
}

const n1 = (x: number | undefined) => (x === undefined ? "–" : x.toFixed(1));
/** CPU µs per superstep of a side (its CPU time over the measured run, per node). */
const cpuStep = (s: Side | null) =>
  s?.cpuMs !== undefined && s.nodes ? (s.cpuMs * 1000) / s.nodes : undefined;
const ratio = (x: number | undefined) => (x === undefined ? "–" : `${Math.round(x)}×`);

/** The targets of issue 20 items 1, 2 and 5 that the rows answer. */
export function engineTargets(rows: readonly EngineRow[]): EngineCheck[] {
  const find = (w: Workload, s: StoreKind, p: number) =>
    rows.find((r) => r.workload === w && r.store === s && r.param === p);
  const out: EngineCheck[] = [];
  for (const store of ["none", "memory", "sqlite"] as const) {
    const a = find("wide", store, 20);
    const b = find("wide", store, 200);
    if (!a?.nodestep || !b?.nodestep) continue;
    const growth = b.nodestep.usPerStep! / a.nodestep.usPerStep!;
    const r = [a.ratio.usPerStep, b.ratio.usPerStep];
    out.push({
      target: `wide (${store}): per step at 200 fields within 2× of 20 fields; ≥ 100× LangGraph.js`,
      holds:
        growth > 2 || r.some((x) => x !== undefined && x < 100)
          ? false
          : r.some((x) => x === undefined)
            ? null
            : true,
      detail: `${n1(a.nodestep.usPerStep)} / ${n1(b.nodestep.usPerStep)} µs per step (CPU ${n1(cpuStep(a.nodestep))} / ${n1(cpuStep(b.nodestep))}); 200 vs 20: ${growth.toFixed(2)}×; ratio ${ratio(r[0])} / ${ratio(r[1])}`,
    });
  }
  for (const store of ["none", "memory"] as const) {
    const a = find("long", store, 30);
    const b = find("long", store, 300);
    if (!a?.nodestep || !b?.nodestep) continue;
    const growth = b.nodestep.usPerStep! / a.nodestep.usPerStep!;
    out.push({
      target: `long (${store}): per step flat in the node count (300 vs 30 nodes within 1.5×)`,
      holds: growth <= 1.5,
      detail: `${n1(a.nodestep.usPerStep)} / ${n1(b.nodestep.usPerStep)} µs per step (CPU ${n1(cpuStep(a.nodestep))} / ${n1(cpuStep(b.nodestep))}); 300 vs 30: ${growth.toFixed(2)}×; LangGraph.js ${n1(a.langgraph?.usPerStep)} / ${n1(b.langgraph?.usPerStep)}`,
    });
  }
  for (const store of ["memory", "sqlite"] as const) {
    const t = find("threads", store, 1000);
    if (!t?.nodestep) continue;
    const r = t.ratio.usPerTurn;
    const idle = t.nodestep.idleBytesPerThreadBeyondMessageText!;
    out.push({
      target: `threads (${store}): ≥ 100× LangGraph.js's turns per second; ≤ 2 kB per idle thread beyond its messages`,
      holds: idle > 2048 || (r !== undefined && r < 100) ? false : r === undefined ? null : true,
      detail: `${Math.round(t.nodestep.turnsPerSec!)} turns/s (LangGraph.js ${t.langgraph ? Math.round(t.langgraph.turnsPerSec!) : "–"}), ratio ${ratio(r)}, CPU ${n1(t.nodestep.cpuUsPerTurn)} µs/turn (LangGraph.js ${n1(t.langgraph?.cpuUsPerTurn)}); idle thread ${idle} B beyond its messages' JSON text (${t.nodestep.idleBytesPerThreadBeyondMessages} B beyond the stored events' text)`,
    });
  }
  return out;
}

/** The `threads` rows' memory figures, per thread, both sides (a markdown table). */
export function threadsMemoryTable(rows: readonly EngineRow[]): string {
  const head = [
    "store",
    "impl",
    "threads",
    "turns/s",
    "idle heap / thread",
    "messages' heap / thread",
    "beyond stored text / thread",
    "beyond messages' text / thread",
    "CPU µs / turn",
    "RSS growth / thread",
    "peak RSS MB",
  ];
  const body: string[][] = [];
  for (const r of rows) {
    if (r.workload !== "threads") continue;
    for (const [impl, s] of [
      ["nodestep", r.nodestep],
      ["LangGraph.js", r.langgraph],
    ] as const) {
      if (!s) continue;
      body.push([
        r.store,
        impl,
        r.param.toLocaleString("en-US"),
        Math.round(s.turnsPerSec ?? 0).toLocaleString("en-US"),
        `${((s.idleBytesPerThread ?? 0) / 1024).toFixed(1)} kB`,
        `${((s.messagesHeapBytesPerThread ?? 0) / 1024).toFixed(1)} kB`,
        `${((s.idleBytesPerThreadBeyondMessages ?? 0) / 1024).toFixed(1)} kB`,
        `${((s.idleBytesPerThreadBeyondMessageText ?? 0) / 1024).toFixed(1)} kB`,
        (s.cpuUsPerTurn ?? 0).toFixed(0),
        `${(s.rssGrowthKbPerThread ?? 0).toFixed(1)} kB`,
        String(Math.round(s.peakRssMb ?? 0)),
      ]);
    }
  }
  const w = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (c: string[]) => `| ${c.map((x, i) => x.padEnd(w[i]!)).join(" | ")} |`;
  return [line(head), `|${w.map((x) => "-".repeat(x + 2)).join("|")}|`, ...body.map(line)].join(
    "\n",
  );
}
