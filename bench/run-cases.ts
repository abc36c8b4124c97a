/**
 * Running the plan's cases: each repetition in a child process of the compiled worker, the
 * two implementations alternating; the medians, the ratios LangGraph.js / nodestep, and the
 * tables and targets printed.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { loadavg } from "node:os";
import type { Args } from "./bench-args.js";
import type { Plan } from "./case-plan.js";
import { type Figures, type Impl, median, SCRIPT, type TurnSample } from "./common.js";
import { threadsMemoryTable } from "./engine-plan.js";
import {
  checkTargets,
  conversationTable,
  fmt,
  mainTable,
  partsTable,
  type Row,
  type Side,
  targetsTable,
  unitOf,
} from "./report.js";
import { buildWorker } from "./worker-build.js";

/** Run one child (`worker`: the compiled bench/worker.ts); resolve its figures, or an error message. */
function runChild(worker: string, impl: Impl, p: Plan): Promise<Figures | string> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [worker, impl, p.workload, p.store, String(p.param)], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      err += d.toString();
    });
    child.on("close", (code) => {
      const line = out.trim().split("\n").at(-1) ?? "";
      if (code === 0 && line.startsWith("{")) resolve(JSON.parse(line) as Figures);
      else {
        const lines = err
          .split("\n")
          .filter((l) => l.trim() && !l.includes("MaxListenersExceeded"));
        resolve(`exit ${code}: ${lines.slice(0, 6).join(" | ").slice(0, 600)}`);
      }
    });
  });
}

/** Elementwise median of the runs' figures. */
function medianSide(runs: Figures[]): Side | null {
  if (runs.length === 0) return null;
  const first = runs[0]!;
  const side: Record<string, unknown> = { runs: runs.length };
  for (const [key, value] of Object.entries(first)) {
    if (key === "impl" || key === "workload" || key === "store" || key === "param") continue;
    if (typeof value === "number") {
      side[key] = median(runs.map((r) => (r as unknown as Record<string, number>)[key] ?? 0));
    }
  }
  if (first.seededTurns) side.seededTurns = first.seededTurns;
  if (first.samples) {
    side.samples = first.samples.map((s, i): TurnSample => {
      const at = (f: keyof TurnSample) => median(runs.map((r) => r.samples?.[i]?.[f] ?? 0));
      return {
        turn: s.turn,
        usPerTurn: at("usPerTurn"),
        bytesStored: at("bytesStored"),
        bytesWritten: at("bytesWritten"),
      };
    });
  }
  return side as unknown as Side;
}

const RATIO_FIELDS = [
  "totalMs",
  "cpuMs",
  "usPerStep",
  "usPerTurn",
  "usPerInvoke",
  "peakRssMb",
  "bytesStored",
] as const;

function ratios(ns: Side | null, lg: Side | null): Record<string, number> {
  const out: Record<string, number> = {};
  if (!ns || !lg) return out;
  for (const f of RATIO_FIELDS) {
    const a = lg[f];
    const b = ns[f];
    if (typeof a === "number" && typeof b === "number" && b > 0) out[f] = a / b;
  }
  return out;
}

// ---- main ----

/** The load average (1, 5, 15 minutes) as `"3.42 5.10 9.21"`. */
export function load(): string {
  return loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");
}

/**
 * Run the plan's cases, each in child processes of the compiled worker; `progress` gets the
 * rows after each case (so that a run stopped halfway still leaves its figures).
 */
export async function runPlan(
  plan: Plan[],
  args: Args,
  progress: (rows: Row[]) => void,
): Promise<Row[]> {
  // The children run bench/worker.ts compiled, not under tsx (bench/worker-build.ts says why).
  const worker = await buildWorker();
  const rows: Row[] = [];
  try {
    for (const p of plan) {
      rows.push(await runCase(worker.entry, p, args));
      progress(rows);
    }
  } finally {
    worker.remove();
  }
  return rows;
}

/** One case of the plan: its repetitions on both sides, alternating; the medians. */
async function runCase(worker: string, p: Plan, args: Args): Promise<Row> {
  const nsRuns: Figures[] = [];
  const lgRuns: Figures[] = [];
  const seconds: { nodestep: number[]; langgraph: number[] } = { nodestep: [], langgraph: [] };
  const errors: string[] = [];
  const wantNs = args.impls.includes("nodestep");
  const wantLg =
    args.impls.includes("langgraph") && !p.nodestepOnly && !(args.quick && p.slowLanggraph);
  const nsReps = args.quick || p.nodestepOnly || p.steadyNodestep ? 1 : args.reps;
  const lgReps = args.quick || p.slowLanggraph || p.steadyLanggraph ? 1 : args.reps;
  const reps = Math.max(wantNs ? nsReps : 0, wantLg ? lgReps : 0);
  for (let rep = 0; rep < reps; rep++) {
    // Alternate which implementation goes first.
    const order: Impl[] = rep % 2 === 0 ? ["nodestep", "langgraph"] : ["langgraph", "nodestep"];
    for (const impl of order) {
      const want = impl === "nodestep" ? wantNs && rep < nsReps : wantLg && rep < lgReps;
      if (!want) continue;
      const t0 = performance.now();
      const result = await runChild(worker, impl, p);
      const secs = (performance.now() - t0) / 1000;
      seconds[impl].push(Math.round(secs * 10) / 10);
      const label = `  ${p.workload}/${p.store}/${p.param} ${impl} #${rep + 1}`;
      if (typeof result === "string") {
        errors.push(`${impl}: ${result}`);
        console.log(`${label}: FAILED (${secs.toFixed(1)} s) ${result}`);
      } else {
        (impl === "nodestep" ? nsRuns : lgRuns).push(result);
        const u = unitOf(p.workload);
        console.log(`${label}: ${fmt(result[u.field], 1)} ${u.label} (${secs.toFixed(1)} s)`);
      }
    }
  }
  const nodestep = medianSide(nsRuns);
  const langgraph = medianSide(lgRuns);
  const row: Row = {
    workload: p.workload,
    store: p.store,
    param: p.param,
    nodestep,
    langgraph,
    ratio: ratios(nodestep, langgraph),
    seconds,
  };
  if (errors.length > 0) row.errors = errors;
  return row;
}

/** The plan's tables and its targets. */
export function printCases(rows: Row[], args: Args): void {
  console.log(
    `\nMedians of ${args.quick ? 1 : args.reps} runs (1 for the nodestep-only and steady cases and LangGraph.js's slow ones, see bench/run.ts); ratio = LangGraph.js / nodestep; load average at the end ${load()}\n`,
  );
  console.log(mainTable(rows));
  if (rows.some((r) => r.workload === "thread")) {
    console.log(
      "\nConversation on one thread (issue 3): time per turn (median of 5 turns) and bytes written by that turn\n",
    );
    console.log(conversationTable(rows));
    const seeded = rows.filter((r) => r.langgraph?.seededTurns);
    if (seeded.length > 0) {
      const { from, to } = seeded[0]!.langgraph!.seededTurns!;
      console.log(
        `\nLangGraph.js's ${seeded.map((r) => `thread/${r.store}/${r.param}`).join(", ")}: turns ${from}–${to} written in one update, not invoked (bench/common.ts seedRange; its bytes stored are left out; --full-threads invokes every turn)`,
      );
    }
  }
  if (rows.some((r) => r.workload === "parts")) {
    console.log(
      `\nConversation with images (issue 15): ${SCRIPT.imageChars.toLocaleString("en-US")}-character base64 image every ${SCRIPT.imageEvery} turns; bytes stored at the end against the images' own bytes (each once)\n`,
    );
    console.log(partsTable(rows));
  }
  if (rows.some((r) => r.workload === "threads")) {
    console.log("\nMany threads at once (issue 20): memory per thread after the run\n");
    console.log(threadsMemoryTable(rows));
  }
  const checks = checkTargets(rows);
  if (checks.length > 0) {
    console.log(
      args.quick
        ? "\nTargets of issue 8 (--quick: one run each, LangGraph.js's slow cases skipped; judge the targets on a full run)\n"
        : "\nTargets of issue 8\n",
    );
    console.log(targetsTable(checks));
  }
}
