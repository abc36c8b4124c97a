/**
 * `npm run bench`: every workload of issue 8, for nodestep and LangGraph.js, each run in its own
 * child process (bench/worker.ts), the two implementations alternating, several repetitions
 * (each child warms up on a small run of the same shape first); prints medians and the ratio
 * LangGraph.js / nodestep, the 1,000-turn conversation of issue 3, and the targets.
 *
 * Repetitions: fast cases run `--reps` times per side (medians). Once: LangGraph.js's slow
 * cases (`slowLanggraph`: a minute or more), the cases whose 3 runs in the full run of
 * 2026-12-01 were within 10% of each other (`steadyLanggraph`, `steadyNodestep`), and the
 * nodestep-only ones. The memory workload fills its stores through `batch` and times 1,000
 * single puts (bench/memory.ts).
 *
 * The children run bench/worker.ts compiled (bundled once per run by bench/worker-build.ts),
 * not under tsx: tsx's loader thread added 35–55 MB to each child's peak RSS and 1.5 s (nodestep)
 * to 2.4 s (LangGraph.js) of CPU to each child's start, over some 135 children.
 *
 * Expected duration of the full run: about 14.5 minutes on the 2-core machine (estimated from
 * the per-case seconds of the 22.8-minute run of 2026-12-01: the plan of child processes
 * about 11.7 min, memory about 1.6, the rest — import, models, workers, cold, streaming,
 * postgres-ab — about 1.3), less the children's tsx start (about 4 CPU-minutes over the plan:
 * not yet measured end to end); `--quick` a few minutes. Each part prints its seconds
 * (`[cases: 58.9 s]`), the run ends with the seconds of every part and the total, and the
 * JSON keeps both (`parts`, `totalSeconds`) and each case's child seconds (`cases[].seconds`).
 *
 * Flags:
 *   --json FILE        write every figure of every table as one JSON object (bench/results.ts:
 *                      machine, parts and their seconds, the cases with their targets, import,
 *                      models, memory, workers, cold, streaming, postgres-ab; null for a part
 *                      that did not run), kept current after each case and part
 *   --only a,b         only these workloads: import (import time, bench/import-time.ts), loop,
 *                      react, thread, fanout, postgres, parts (issue 15: 1,000 turns with an
 *                      image every 10 turns, memory and SQLite, nodestep only), memory
 *                      (long-term memory, bench/memory.ts), models (the per-call overhead of
 *                      fromAISdk and fallbackChat, bench/models.ts), cold, streaming and
 *                      postgres-ab (issue 20: bench/cold-load.ts, bench/streaming.ts,
 *                      bench/postgres-ab.ts, each a process of its own), workers (end-to-end
 *                      runs per second through BullMQ workers, bench/workers-runs.ts), or
 *                      workload/store (react/sqlite) or workload/store/param (react/memory/1000)
 *                      Issue 20: wide, long, threads (bench/engine-plan.ts).
 *   --quick            one repetition, and skip the LangGraph.js runs that take minutes
 *   --impl NAME        run only nodestep or only langgraph
 *   --reps N           repetitions of the fast cases (default 3)
 *
 * @module
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import {
  type Figures,
  type Impl,
  median,
  SCRIPT,
  type StoreKind,
  type TurnSample,
  type Workload,
} from "./common.js";
import { ENGINE_PLAN, threadsMemoryTable } from "./engine-plan.js";
import { importTimeReport, measureImportTime } from "./import-time.js";
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
import {
  type BenchInput,
  benchJson,
  type Machine,
  PARTS,
  type Part,
  type PartTime,
  partsSummary,
} from "./results.js";
import { buildWorker } from "./worker-build.js";

/** One line of the plan. */
interface Plan {
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

const PLAN: Plan[] = [
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

interface Args {
  json: string | null;
  only: string[] | null;
  quick: boolean;
  impls: Impl[];
  reps: number;
}

function parseArgs(argv: string[]): Args {
  const args: Args = {
    json: null,
    only: null,
    quick: false,
    impls: ["nodestep", "langgraph"],
    reps: 3,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === "--json") args.json = value();
    else if (a === "--only") args.only = value().split(",").filter(Boolean);
    else if (a === "--quick") args.quick = true;
    else if (a === "--reps") {
      const v = value();
      args.reps = Number(v);
      if (!Number.isInteger(args.reps) || args.reps < 1)
        throw new Error(`--reps needs a whole number ≥ 1, got ${v}`);
    } else if (a === "--impl") {
      const v = value();
      if (v !== "nodestep" && v !== "langgraph") throw new Error("--impl is nodestep or langgraph");
      args.impls = [v];
    } else throw new Error(`unknown flag ${a}`);
  }
  return args;
}

function selected(p: Plan, only: string[] | null): boolean {
  if (only === null) return true;
  const names = [
    p.group,
    p.workload,
    `${p.workload}/${p.store}`,
    `${p.workload}/${p.store}/${p.param}`,
  ];
  return only.some((o) => names.includes(o));
}

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

const USAGE = `usage: npm run bench -- [--json FILE] [--only a,b] [--quick] [--impl nodestep|langgraph] [--reps N]
  --only takes workloads (import, loop, react, thread, fanout, postgres, parts, memory, models, cold, streaming, postgres-ab, workers, wide, long, threads), workload/store (react/sqlite)
  or workload/store/param (react/memory/1000); see the header of bench/run.ts`;

/**
 * The parts that run as scripts of their own (each in one process): their flags, and those
 * of `--quick`. Each prints its table and, given `--json F`, writes its figures to F.
 */
const OWN: Record<
  Exclude<Part, "cases" | "models" | "import">,
  { file: string; quick: string[] }
> = {
  memory: { file: "./memory.ts", quick: ["--quick"] },
  workers: { file: "./workers-runs.ts", quick: ["--quick"] },
  cold: { file: "./cold-load.ts", quick: ["--reps", "1"] },
  streaming: { file: "./streaming.ts", quick: ["--reps", "2"] },
  "postgres-ab": { file: "./postgres-ab.ts", quick: ["--reps", "1"] },
};

/** `FILE.<part>.json` for a `--json FILE` (`FILE` without its `.json`). */
function partFile(json: string, part: Part): string {
  return json.replace(/(\.json)?$/, `.${part}.json`);
}

async function main(): Promise<void> {
  let args: Args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`bench: ${(e as Error).message}\n${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  const only = args.only;
  const wants = (part: Part) => only === null || only.includes(part);
  const plan = PLAN.filter((p) => selected(p, only));
  const unknown = (only ?? []).filter(
    (o) => !PARTS.includes(o as Part) && !PLAN.some((p) => selected(p, [o])),
  );
  if (unknown.length > 0 || (only !== null && plan.length === 0 && !PARTS.some(wants))) {
    process.stderr.write(`bench: no case matches --only ${unknown.join(",")}\n${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  const machine: Machine = {
    cpu: cpus()[0]?.model ?? "unknown",
    cores: availableParallelism(),
    node: process.version,
    loadAtStart: load(),
    loadAtEnd: "",
  };
  console.log(
    `nodestep vs LangGraph.js: ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}, load average ${machine.loadAtStart}`,
  );
  const parts: PartTime[] = [];
  const collected: Omit<BenchInput, "machine" | "parts"> = { own: {} };
  const writeJson = () => {
    if (!args.json) return;
    const out = benchJson({ machine: { ...machine, loadAtEnd: load() }, parts, ...collected });
    writeFileSync(args.json, `${JSON.stringify(out, null, 2)}\n`);
  };
  /** Run one part, print and keep its seconds, and write the JSON so far. */
  const part = async (name: Part, run: () => Promise<void>) => {
    const t0 = performance.now();
    await run();
    const seconds = (performance.now() - t0) / 1000;
    parts.push({ part: name, seconds });
    console.log(`\n[${name}: ${seconds.toFixed(1)} s]`);
    writeJson();
  };

  if (wants("import"))
    await part("import", async () => {
      const rows = measureImportTime({ reps: args.quick ? 5 : 15 });
      console.log(`\nImport time (issue 12), medians of ${rows[0]!.runs} runs\n`);
      console.log(importTimeReport(rows));
      collected.own!.import = rows;
    });
  if (plan.length > 0)
    await part("cases", async () => {
      const rows = await runPlan(plan, args, (r) => {
        collected.cases = r;
        writeJson();
      });
      printCases(rows, args);
      collected.cases = rows;
      collected.targets = checkTargets(rows);
    });
  if (wants("models"))
    await part("models", async () => {
      const { modelOverheadRows, modelOverheadTable } = await import("./models.js");
      console.log(
        "\nPer-call overhead of the AI SDK adapter and of fallbackChat (issue 16; median of 5 rounds)\n",
      );
      const rows = await modelOverheadRows(args.quick ? 2_000 : 20_000);
      console.log(modelOverheadTable(rows));
      collected.models = rows;
    });
  for (const [name, own] of Object.entries(OWN) as [
    keyof typeof OWN,
    (typeof OWN)[keyof typeof OWN],
  ][]) {
    if (!wants(name)) continue;
    await part(name, async () => {
      const file = args.json ? partFile(args.json, name) : null;
      const extra = [...(file ? ["--json", file] : []), ...(args.quick ? own.quick : [])];
      console.log("");
      if (!(await runOwnProcess(own.file, extra))) process.exitCode = 1;
      if (file && existsSync(file)) {
        collected.own![name] = JSON.parse(readFileSync(file, "utf8"));
        rmSync(file);
      }
    });
  }
  machine.loadAtEnd = load();
  console.log(`\nSeconds per part, load average at the end ${machine.loadAtEnd}\n`);
  console.log(partsSummary(parts));
  writeJson();
  if (args.json) console.log(`\nWrote ${args.json}`);
}

function load(): string {
  return loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");
}

/**
 * Run the plan's cases, each in child processes of the compiled worker; `progress` gets the
 * rows after each case (so that a run stopped halfway still leaves its figures).
 */
async function runPlan(plan: Plan[], args: Args, progress: (rows: Row[]) => void): Promise<Row[]> {
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
function printCases(rows: Row[], args: Args): void {
  console.log(
    `\nMedians of ${args.quick ? 1 : args.reps} runs (1 for the nodestep-only and steady cases and LangGraph.js's slow ones, see bench/run.ts); ratio = LangGraph.js / nodestep; load average at the end ${load()}\n`,
  );
  console.log(mainTable(rows));
  if (rows.some((r) => r.workload === "thread")) {
    console.log(
      "\nConversation on one thread (issue 3): time per turn (median of 5 turns) and bytes written by that turn\n",
    );
    console.log(conversationTable(rows));
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

/** A workload script of bench/ in its own process (under tsx), with `extra` flags; whether it exited 0. */
function runOwnProcess(script: string, extra: string[]): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", fileURLToPath(new URL(script, import.meta.url)), ...extra],
      { stdio: "inherit" },
    );
    child.on("exit", (code) => resolve(code === 0));
  });
}

await main();
