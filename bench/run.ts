/**
 * `npm run bench`: every workload of issue 8, for nodestep and LangGraph.js, each run in its own
 * child process (bench/worker.ts), the two implementations alternating, several repetitions
 * (each child warms up on a small run of the same shape first); prints medians and the ratio
 * LangGraph.js / nodestep, the 1,000-turn conversation of issue 3, and the targets.
 *
 * Repetitions: fast cases run `--reps` times per side (medians). Once: LangGraph.js's slow
 * cases (`slowLanggraph`: up to three minutes), the cases whose 3 runs in the full run of
 * 2026-12-01 were within 10% of each other (`steadyLanggraph`, `steadyNodestep`), and the
 * nodestep-only ones (the plan: bench/case-plan.ts; running it: bench/run-cases.ts; the flags:
 * bench/bench-args.ts). The memory workload fills its stores through `batch` and times 1,000
 * single puts (bench/memory.ts).
 *
 * The children run bench/worker.ts compiled (bundled once per run by bench/worker-build.ts),
 * not under tsx: tsx's loader thread added 35–55 MB to each child's peak RSS and 1.5 s (nodestep)
 * to 2.4 s (LangGraph.js) of CPU to each child's start, over some 135 children.
 *
 * Duration of the full run: 15.0 minutes (898 s) on a 2-core AMD EPYC with nothing else
 * running on 2026-12-06 at 13:31 (cases 768 s, memory 51, postgres-ab 23, workers 16, import
 * 14, cold 13, streaming 8, models 5; docs/performance.md, "Latest run"), on a day the machine
 * was slow (a bare `node -e 0` 106 ms); 20.2 minutes on the same kind of day before
 * LangGraph.js's 1,000-turn threads were seeded (bench/common.ts seedRange; `--full-threads`
 * invokes every turn, about 5 minutes more). LangGraph.js's slow cases are most of the cases'
 * time (617 s of LangGraph.js's children), so the budget follows the machine's speed on the
 * day (docs/performance.md, "How long a run takes"). `--quick` about 5 minutes (8.0 at load
 * 8–11 on 2026-12-06: cases 347 s, the rest 131). Each part prints its seconds
 * (`[cases: 58.9 s]`), the run ends with the seconds of every part and the total, and the JSON
 * keeps both (`parts`, `totalSeconds`) and each case's child seconds (`cases[].seconds`).
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
 *   --full-threads     LangGraph.js's 1,000-turn threads invoke every turn (by default turns
 *                      101–900 are written in one update, untimed: bench/common.ts seedRange;
 *                      adds about 5 minutes)
 *   --help, -h         print the usage and exit 0
 *
 * @module
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus } from "node:os";
import { fileURLToPath } from "node:url";
import { type Args, parseArgs, USAGE } from "./bench-args.js";
import { PLAN, selected } from "./case-plan.js";
import { FULL_THREADS_ENV } from "./common.js";
import { IMPORT_ROUNDS, importTimeReport, measureImportTime } from "./import-time.js";
import { checkTargets } from "./report.js";
import {
  type BenchInput,
  benchJson,
  type Machine,
  PARTS,
  type Part,
  type PartTime,
  partsSummary,
} from "./results.js";
import { load, printCases, runPlan } from "./run-cases.js";

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
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  // The children inherit it (bench/common.ts seedRange).
  if (args.fullThreads) process.env[FULL_THREADS_ENV] = "1";
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
      const rows = measureImportTime({ reps: args.quick ? 5 : IMPORT_ROUNDS });
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
