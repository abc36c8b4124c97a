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
 * Expected duration of the full run: about 14.5 minutes on the 2-core machine (estimated from
 * the per-case seconds of the 22.8-minute run of 2026-12-01: the plan of child processes
 * about 11.7 min, memory about 1.6, the rest — import, models, workers, cold, streaming,
 * postgres-ab — about 1.3); `--quick` a few minutes.
 *
 * Flags:
 *   --json FILE        write every figure as JSON (one object per workload, store and param)
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
import { writeFileSync } from "node:fs";
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
import { ENGINE_PLAN, engineTargets, engineUnit, threadsMemoryTable } from "./engine-plan.js";
import { importTimeReport, measureImportTime } from "./import-time.js";

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

/** Median figures of one side. */
type Side = Omit<Figures, "impl" | "workload" | "store" | "param"> & { runs: number };

/** One object of the JSON output. */
interface Row {
  workload: Workload;
  store: StoreKind;
  param: number;
  nodestep: Side | null;
  langgraph: Side | null;
  /** LangGraph.js / nodestep for each figure both sides have. */
  ratio: Record<string, number>;
  errors?: string[];
}

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

const WORKER = fileURLToPath(new URL("./worker.ts", import.meta.url));

/** Run one child; resolve its figures, or an error message. */
function runChild(impl: Impl, p: Plan): Promise<Figures | string> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", WORKER, impl, p.workload, p.store, String(p.param)],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
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

// ---- formatting ----

function fmt(x: number | undefined | null, digits = 0): string {
  if (x === undefined || x === null || Number.isNaN(x)) return "–";
  if (Math.abs(x) >= 100 || digits === 0) return Math.round(x).toLocaleString("en-US");
  return x.toFixed(digits);
}

function fmtBytes(x: number | undefined): string {
  if (x === undefined) return "–";
  if (x >= 1e6) return `${(x / 1e6).toFixed(1)} MB`;
  if (x >= 1e3) return `${(x / 1e3).toFixed(1)} kB`;
  return `${x} B`;
}

function fmtRatio(x: number | undefined): string {
  if (x === undefined) return "–";
  return x >= 10 ? `${Math.round(x).toLocaleString("en-US")}×` : `${x.toFixed(2)}×`;
}

function unitOf(w: Workload): {
  field: "usPerStep" | "usPerTurn" | "usPerInvoke" | "totalMs";
  label: string;
} {
  const engine = engineUnit(w);
  if (engine) return engine;
  switch (w) {
    case "loop":
      return { field: "usPerStep", label: "µs/step" };
    case "react":
      return { field: "usPerTurn", label: "µs/turn" };
    case "thread":
      return { field: "usPerInvoke", label: "µs/invoke (last 10%)" };
    case "fanout":
      return { field: "totalMs", label: "ms total" };
    case "fanout-limit":
      return { field: "totalMs", label: "ms total, N = 10,000, param = maxConcurrency" };
    case "parts":
      return { field: "usPerTurn", label: "µs/turn (all turns)" };
    default:
      throw new Error(`no unit for workload ${w}`);
  }
}

/** The conversation with images (issue 15): time per turn, and bytes stored against the images' own. */
function partsTable(rows: Row[]): string {
  return table(
    [
      "store",
      "T",
      "µs/turn",
      "µs/invoke (last 10%)",
      "µs image / text turn (median)",
      "images",
      "image bytes",
      "bytes stored",
      "stored / images",
      "copies of each image",
    ],
    rows
      .filter((r) => r.workload === "parts" && r.nodestep)
      .map((r) => {
        const ns = r.nodestep!;
        const images = ns.images ?? 0;
        return [
          r.store,
          r.param.toLocaleString("en-US"),
          fmt(ns.usPerTurn, 1),
          fmt(ns.usPerInvoke, 1),
          `${fmt(ns.usPerImageTurn, 1)} / ${fmt(ns.usPerTextTurn, 1)}`,
          String(images),
          fmtBytes(ns.imageBytes),
          fmtBytes(ns.bytesStored),
          ns.imageBytes ? `${((ns.bytesStored ?? 0) / ns.imageBytes).toFixed(3)}×` : "–",
          images > 0 ? ((ns.imageCopies ?? 0) / images).toFixed(2) : "–",
        ];
      }),
  );
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  return [
    line(header),
    `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`,
    ...rows.map(line),
  ].join("\n");
}

function mainTable(rows: Row[]): string {
  return table(
    [
      "workload",
      "store",
      "N/K/T",
      "unit",
      "nodestep",
      "LangGraph.js",
      "ratio",
      "CPU ratio",
      "RSS MB ns / lg",
      "stored ns / lg",
    ],
    rows.map((r) => {
      const u = unitOf(r.workload);
      const ns = r.nodestep;
      const lg = r.langgraph;
      return [
        r.workload,
        r.store,
        r.param.toLocaleString("en-US"),
        u.label,
        fmt(ns?.[u.field], 1),
        fmt(lg?.[u.field], 1),
        fmtRatio(r.ratio[u.field]),
        fmtRatio(r.ratio.cpuMs),
        `${fmt(ns?.peakRssMb)} / ${fmt(lg?.peakRssMb)}`,
        r.store === "none" ? "–" : `${fmtBytes(ns?.bytesStored)} / ${fmtBytes(lg?.bytesStored)}`,
      ];
    }),
  );
}

function conversationTable(rows: Row[]): string {
  const out: string[][] = [];
  for (const r of rows) {
    if (r.workload !== "thread" || (r.param < 1000 && r.store !== "postgres")) continue;
    for (const [impl, side] of [
      ["nodestep", r.nodestep],
      ["LangGraph.js", r.langgraph],
    ] as const) {
      if (!side?.samples) continue;
      out.push([
        `${r.store} (T = ${r.param})`,
        impl,
        ...side.samples.flatMap((s) => [
          `${s.turn}: ${fmt(s.usPerTurn)} µs, ${fmtBytes(s.bytesWritten)}`,
        ]),
      ]);
    }
  }
  const width = Math.max(0, ...out.map((r) => r.length - 2));
  return table(
    [
      "store",
      "impl",
      ...Array.from({ length: width }, (_, i) => `turn ${i + 1} sampled: time/turn, bytes written`),
    ],
    out.map((r) => [...r, ...Array.from({ length: width + 2 - r.length }, () => "")]),
  );
}

// ---- targets ----

interface TargetCheck {
  target: string;
  holds: boolean | null;
  detail: string;
}

function checkTargets(rows: Row[]): TargetCheck[] {
  const find = (w: Workload, s: StoreKind, p: number) =>
    rows.find((r) => r.workload === w && r.store === s && r.param === p);
  const checks: TargetCheck[] = [];
  const add = (target: string, holds: boolean | null, detail: string) =>
    checks.push({ target, holds, detail });
  // false if any part fails; null (cannot tell) if a part needs a LangGraph.js figure that is missing.
  const all = (xs: (boolean | null)[]) =>
    xs.some((x) => x === false) ? false : xs.some((x) => x === null) ? null : true;

  const l1 = find("loop", "none", 1000);
  const l10 = find("loop", "none", 10000);
  if (l1?.nodestep && l10?.nodestep) {
    const r1 = l1.ratio.usPerStep ?? null;
    const r10 = l10.ratio.usPerStep ?? null;
    const flat = l10.nodestep.usPerStep! / l1.nodestep.usPerStep!;
    add(
      "loop: ≥ 100× faster per superstep (≈ 5 µs or less), flat from N = 1,000 to 10,000",
      all([
        r1 === null ? null : r1 >= 100,
        r10 === null ? null : r10 >= 100,
        l10.nodestep.usPerStep! <= 5,
        flat <= 1.5,
      ]),
      `${fmt(l1.nodestep.usPerStep, 1)} / ${fmt(l10.nodestep.usPerStep, 1)} µs per step; ratio ${fmtRatio(r1 ?? undefined)} / ${fmtRatio(r10 ?? undefined)}; N=10,000 vs 1,000: ${flat.toFixed(2)}×`,
    );
  }
  const rm = find("react", "memory", 1000);
  if (rm?.nodestep) {
    const r = rm.ratio.usPerTurn ?? null;
    const bytes = rm.nodestep.bytesStored! / rm.nodestep.messagesJsonBytes!;
    add(
      "react K = 1,000, memory store: ≥ 100× faster per turn; bytes stored ≤ 1.5× the final message list's JSON",
      all([r === null ? null : r >= 100, bytes <= 1.5]),
      `${fmt(rm.nodestep.usPerTurn)} µs per turn, ratio ${fmtRatio(r ?? undefined)}; stored ${fmtBytes(rm.nodestep.bytesStored)} = ${bytes.toFixed(2)}× the messages' JSON (${fmtBytes(rm.nodestep.messagesJsonBytes)}); LangGraph.js ${fmtBytes(rm.langgraph?.bytesStored)}`,
    );
  }
  const rs = find("react", "sqlite", 1000);
  const rs50 = find("react", "sqlite", 50);
  if (rs?.nodestep && rs50?.nodestep) {
    const r = rs.ratio.usPerTurn ?? null;
    const file = rs.nodestep.bytesStored! / rs.nodestep.messagesJsonBytes!;
    const growth = rs.nodestep.usPerTurn! / rs50.nodestep.usPerTurn!;
    add(
      "react K = 1,000, SQLite: ≥ 50× faster per turn; file ≤ 2× the messages' JSON; per turn at K = 1,000 within 1.5× of K = 50",
      all([r === null ? null : r >= 50, file <= 2, growth <= 1.5]),
      `${fmt(rs.nodestep.usPerTurn)} µs per turn, ratio ${fmtRatio(r ?? undefined)}; file ${fmtBytes(rs.nodestep.bytesStored)} = ${file.toFixed(2)}× the messages' JSON; K=1,000 vs K=50: ${growth.toFixed(2)}×`,
    );
  }
  for (const store of ["memory", "sqlite"] as const) {
    const t = find("thread", store, 1000);
    const t2 = find("thread", store, 200);
    if (t?.nodestep && t2?.nodestep) {
      const r = t.ratio.usPerInvoke ?? null;
      const s = t.nodestep.samples ?? [];
      const first = s.find((x) => x.turn === 100);
      const last = s.find((x) => x.turn === 1000);
      const flat = t.nodestep.usPerInvoke! / t2.nodestep.usPerInvoke!;
      add(
        `thread T = 1,000 (${store}): ≥ 50× faster per invoke at the end; flat in T`,
        all([r === null ? null : r >= 50, flat <= 1.5]),
        `${fmt(t.nodestep.usPerInvoke)} µs per invoke at the end, ratio ${fmtRatio(r ?? undefined)}; T=1,000 vs T=200: ${flat.toFixed(2)}×; bytes per turn at 100 / 1,000: ${fmtBytes(first?.bytesWritten)} / ${fmtBytes(last?.bytesWritten)}`,
      );
    }
  }
  const f1 = find("fanout", "none", 1000);
  const f10 = find("fanout", "none", 10000);
  if (f1?.nodestep && f10?.nodestep) {
    const r = f10.ratio.totalMs ?? null;
    const growth = f10.nodestep.totalMs / f1.nodestep.totalMs;
    // Time ∝ N^k between the two sizes: k = 1 is linear, 2 quadratic. A linear engine still
    // spends a little more per task at N = 10,000 (its tasks outgrow the CPU caches and the
    // young generation), so k up to 1.3 (20×) counts as linear.
    const k = Math.log10(growth);
    const lg =
      f1.langgraph && f10.langgraph
        ? Math.log10(f10.langgraph.totalMs / f1.langgraph.totalMs)
        : null;
    add(
      "fanout N = 10,000: ≥ 500× faster; time grows linearly with N (N^k from 1,000 to 10,000, k ≤ 1.3)",
      all([r === null ? null : r >= 500, k <= 1.3]),
      `${fmt(f10.nodestep.totalMs)} ms, ratio ${fmtRatio(r ?? undefined)}; N=10,000 vs 1,000: ${growth.toFixed(1)}×, k = ${k.toFixed(2)} (linear 1, quadratic 2${lg === null ? "" : `; LangGraph.js ${lg.toFixed(2)}`}); ${fmt((f1.nodestep.totalMs * 1000) / 1000, 2)} / ${fmt((f10.nodestep.totalMs * 1000) / 10000, 2)} µs per task`,
    );
  }
  const peaks = (["memory", "sqlite", "postgres"] as const)
    .map((s) => find("react", s, 1000))
    .filter((r): r is Row => r?.nodestep != null);
  if (peaks.length > 0) {
    add(
      "peak RSS, react K = 1,000 with a store: ≤ 150 MB",
      peaks.every((r) => r.nodestep!.peakRssMb <= 150),
      peaks.map((r) => `${r.store} ${fmt(r.nodestep!.peakRssMb)} MB`).join(", "),
    );
  }
  checks.push(...engineTargets(rows));
  return checks;
}

function targetsTable(checks: TargetCheck[]): string {
  return table(
    ["target", "holds", "measured"],
    checks.map((c) => [
      c.target,
      c.holds === null ? "n/a (no LangGraph.js run)" : c.holds ? "yes" : "NO",
      c.detail,
    ]),
  );
}

// ---- main ----

const USAGE = `usage: npm run bench -- [--json FILE] [--only a,b] [--quick] [--impl nodestep|langgraph] [--reps N]
  --only takes workloads (import, loop, react, thread, fanout, postgres, parts, memory, models, cold, streaming, postgres-ab, workers, wide, long, threads), workload/store (react/sqlite)
  or workload/store/param (react/memory/1000); see the header of bench/run.ts`;

async function main(): Promise<void> {
  let args: Args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`bench: ${(e as Error).message}\n${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  // The workers workload runs last, in its own process (bench/workers-runs.ts).
  const workers = args.only === null || args.only.includes("workers");
  const rest = args.only?.filter((o) => o !== "workers") ?? null;
  if (rest === null || rest.length > 0) await runCases({ ...args, only: rest });
  if (workers) await runOwnProcess("./workers-runs.ts", args.quick);
}

async function runCases(args: Args): Promise<void> {
  const wantImport = args.only === null || args.only.includes("import");
  const memory = args.only === null || args.only.includes("memory");
  if (args.only?.length === 1 && memory) return runMemoryWorkload(args.quick);
  const plan = PLAN.filter((p) => selected(p, args.only));
  if (plan.length === 0 && args.only?.includes("models") && !wantImport && !memory) {
    const { modelOverheadRows, modelOverheadTable } = await import("./models.js");
    console.log(
      "Per-call overhead of the AI SDK adapter and of fallbackChat (issue 16; median of 5 rounds)\n",
    );
    console.log(modelOverheadTable(await modelOverheadRows(args.quick ? 2_000 : 20_000)));
    return;
  }
  if (plan.length === 0 && !wantImport && !memory) {
    process.stderr.write(`bench: no case matches --only ${args.only?.join(",")}\n${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  const machine = {
    cpu: cpus()[0]?.model ?? "unknown",
    cores: availableParallelism(),
    node: process.version,
    loadAtStart: loadavg()
      .map((x) => x.toFixed(2))
      .join(" "),
  };
  console.log(
    `nodestep vs LangGraph.js: ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}, load average ${machine.loadAtStart}`,
  );
  if (wantImport) {
    const importRows = measureImportTime({ reps: args.quick ? 5 : 15 });
    console.log(`\nImport time (issue 12), medians of ${importRows[0]!.runs} runs\n`);
    console.log(importTimeReport(importRows));
    if (args.json)
      writeFileSync(
        args.json.replace(/(\.json)?$/, ".import.json"),
        `${JSON.stringify(importRows, null, 2)}\n`,
      );
    if (plan.length === 0) {
      if (memory) await runMemoryWorkload(args.quick);
      return;
    }
  }
  const started = performance.now();
  const rows: Row[] = [];
  for (const p of plan) {
    const nsRuns: Figures[] = [];
    const lgRuns: Figures[] = [];
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
        const result = await runChild(impl, p);
        const secs = ((performance.now() - t0) / 1000).toFixed(1);
        if (typeof result === "string") {
          errors.push(`${impl}: ${result}`);
          console.log(
            `  ${p.workload}/${p.store}/${p.param} ${impl} #${rep + 1}: FAILED (${secs} s) ${result}`,
          );
        } else {
          (impl === "nodestep" ? nsRuns : lgRuns).push(result);
          const u = unitOf(p.workload);
          console.log(
            `  ${p.workload}/${p.store}/${p.param} ${impl} #${rep + 1}: ${fmt(result[u.field], 1)} ${u.label} (${secs} s)`,
          );
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
    };
    if (errors.length > 0) row.errors = errors;
    rows.push(row);
    // Keep the file current, so that a run stopped halfway still leaves its figures.
    if (args.json) writeFileSync(args.json, `${JSON.stringify(rows, null, 2)}\n`);
  }
  const minutes = ((performance.now() - started) / 60000).toFixed(1);
  console.log(
    `\nMedians of ${args.quick ? 1 : args.reps} runs (1 for the nodestep-only and steady cases and LangGraph.js's slow ones, see bench/run.ts); ratio = LangGraph.js / nodestep; took ${minutes} min, load average at the end ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}\n`,
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
  if (args.only === null || args.only.includes("models")) {
    const { modelOverheadRows, modelOverheadTable } = await import("./models.js");
    console.log(
      "\nPer-call overhead of the AI SDK adapter and of fallbackChat (issue 16; median of 5 rounds)\n",
    );
    console.log(modelOverheadTable(await modelOverheadRows(args.quick ? 2_000 : 20_000)));
  }
  if (args.json) {
    writeFileSync(args.json, `${JSON.stringify(rows, null, 2)}\n`);
    console.log(`\nWrote ${args.json}`);
  }
  if (memory) await runMemoryWorkload(args.quick);
}

/** The `memory` workload (bench/memory.ts) in its own process; `--quick`: 10,000 items only. */
function runMemoryWorkload(quick: boolean): Promise<void> {
  return runOwnProcess("./memory.ts", quick);
}

/** A workload script of bench/ in its own process, with `--quick` when given. */
function runOwnProcess(script: string, quick: boolean): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        fileURLToPath(new URL(script, import.meta.url)),
        ...(quick ? ["--quick"] : []),
      ],
      { stdio: "inherit" },
    );
    child.on("exit", (code) => {
      if (code !== 0) process.exitCode = 1;
      resolve();
    });
  });
}

/**
 * Issue 20's workloads that run as scripts of their own (each in one process, both sides
 * alternating in it): `cold` (bench/cold-load.ts), `streaming` (bench/streaming.ts) and
 * `postgres-ab` (bench/postgres-ab.ts). Each prints its table; with `--json FILE` it writes
 * `FILE` with `.<group>.json` for `.json`.
 */
const SCRIPTS = [
  { group: "cold", file: "./cold-load.ts", quick: ["--reps", "1"] },
  { group: "streaming", file: "./streaming.ts", quick: ["--reps", "2"] },
  { group: "postgres-ab", file: "./postgres-ab.ts", quick: ["--reps", "1"] },
] as const;

async function runScripts(argv: string[]): Promise<void> {
  let args: Args;
  try {
    args = parseArgs(argv);
  } catch {
    return;
  }
  for (const s of SCRIPTS) {
    if (args.only !== null && !args.only.includes(s.group)) continue;
    const extra = [
      ...(args.json ? ["--json", args.json.replace(/(\.json)?$/, `.${s.group}.json`)] : []),
      ...(args.quick ? s.quick : []),
    ];
    console.log("");
    await new Promise<void>((resolve) => {
      const child = spawn(
        process.execPath,
        ["--import", "tsx", fileURLToPath(new URL(s.file, import.meta.url)), ...extra],
        { stdio: "inherit" },
      );
      child.on("exit", (code) => {
        if (code !== 0) process.exitCode = 1;
        resolve();
      });
    });
  }
}

const only = (() => {
  const i = process.argv.indexOf("--only");
  return i < 0 ? null : (process.argv[i + 1] ?? "").split(",").filter(Boolean);
})();
// `--only` naming nothing but these scripts' groups runs only them.
if (only === null || !only.every((o) => SCRIPTS.some((s) => s.group === o))) await main();
await runScripts(process.argv.slice(2));
