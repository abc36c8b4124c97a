/**
 * The one JSON file of `npm run bench -- --json FILE`: every figure of every table the run
 * printed (the plan's cases with their targets, import time, model adapters, long-term memory,
 * workers, cold loads, streaming, the PostgreSQL A/B), the machine, and how long each part
 * took. The parts that run in processes of their own write `FILE.<part>.json`; bench/run.ts
 * reads those back into this file (and removes them), so the file is the whole run.
 *
 * @module
 */
import type { ModelOverheadRow } from "./models.js";
import type { Row, TargetCheck } from "./report.js";

/** The parts of a run, in the order they run; `cases` is the plan of child processes. */
export const PARTS = [
  "import",
  "cases",
  "models",
  "memory",
  "workers",
  "cold",
  "streaming",
  "postgres-ab",
] as const;

/** A part of a run. */
export type Part = (typeof PARTS)[number];

/** How long one part took (wall seconds, as bench/run.ts printed it). */
export interface PartTime {
  part: Part;
  seconds: number;
}

/** The machine a run was on. */
export interface Machine {
  cpu: string;
  cores: number;
  node: string;
  /** `os.loadavg()` at the start and at the end, formatted "1m 5m 15m". */
  loadAtStart: string;
  loadAtEnd: string;
}

/** One model-adapter figure (bench/models.ts), per call in µs. */
export interface ModelFigure {
  case: string;
  directUs: number;
  wrappedUs: number;
  directCpuUs: number;
  wrappedCpuUs: number;
  /** wrappedUs − directUs, the table's "overhead µs/call". */
  overheadUs: number;
  /** wrappedCpuUs − directCpuUs, the table's "overhead CPU µs/call". */
  overheadCpuUs: number;
}

/** What a run collected; a part that did not run is absent. */
export interface BenchInput {
  machine: Machine;
  parts: readonly PartTime[];
  cases?: readonly Row[];
  targets?: readonly TargetCheck[];
  /** The rows the parts of their own wrote (their JSON as written), by part. */
  own?: Partial<Record<Exclude<Part, "cases" | "models">, unknown>>;
  models?: readonly ModelOverheadRow[];
}

/** The JSON file: every key always there, `null` for a part that did not run. */
export interface BenchJson {
  machine: Machine;
  /** Sum of the parts' seconds. */
  totalSeconds: number;
  parts: PartTime[];
  cases: Row[] | null;
  targets: TargetCheck[] | null;
  import: unknown;
  models: ModelFigure[] | null;
  memory: unknown;
  workers: unknown;
  cold: unknown;
  streaming: unknown;
  "postgres-ab": unknown;
}

/** A model-adapter row (a tuple in bench/models.ts) as named figures. */
export function modelFigure([name, direct, wrapped]: ModelOverheadRow): ModelFigure {
  return {
    case: name,
    directUs: direct.wall,
    wrappedUs: wrapped.wall,
    directCpuUs: direct.cpu,
    wrappedCpuUs: wrapped.cpu,
    overheadUs: wrapped.wall - direct.wall,
    overheadCpuUs: wrapped.cpu - direct.cpu,
  };
}

/** Build the file's object from what a run collected (pure: no clock, no files). */
export function benchJson(input: BenchInput): BenchJson {
  const own = input.own ?? {};
  return {
    machine: input.machine,
    totalSeconds: input.parts.reduce((sum, p) => sum + p.seconds, 0),
    parts: [...input.parts],
    cases: input.cases ? [...input.cases] : null,
    targets: input.targets ? [...input.targets] : null,
    import: own.import ?? null,
    models: input.models ? input.models.map(modelFigure) : null,
    memory: own.memory ?? null,
    workers: own.workers ?? null,
    cold: own.cold ?? null,
    streaming: own.streaming ?? null,
    "postgres-ab": own["postgres-ab"] ?? null,
  };
}

/** The per-part lines printed at the end of a run, and the total, in seconds and minutes. */
export function partsSummary(parts: readonly PartTime[]): string {
  const total = parts.reduce((sum, p) => sum + p.seconds, 0);
  const width = Math.max(5, ...parts.map((p) => p.part.length));
  return [
    ...parts.map((p) => `  ${p.part.padEnd(width)} ${p.seconds.toFixed(1).padStart(7)} s`),
    `  ${"total".padEnd(width)} ${total.toFixed(1).padStart(7)} s (${(total / 60).toFixed(1)} min)`,
  ].join("\n");
}
