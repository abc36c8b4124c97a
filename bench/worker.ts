/**
 * One benchmark run in its own process: `worker.ts <impl> <workload> <store> <param> [warmupCap]`
 * (warmupCap 0: no warm-up).
 * Prints one JSON line of {@link Figures} on stdout.
 *
 * @module
 */
import "./zod-shared.js";
import {
  type Case,
  type Figures,
  type Impl,
  type StoreKind,
  type Workload,
  warmupCap,
} from "./common.js";
import { ENGINE_WORKLOADS, runEngineCase } from "./engine-cases.js";

const IMPLS: readonly Impl[] = ["nodestep", "langgraph"];
const WORKLOADS: readonly Workload[] = [
  "loop",
  "react",
  "thread",
  "fanout",
  "fanout-limit",
  "parts",
  "wide",
  "long",
  "threads",
];
const STORES: readonly StoreKind[] = ["none", "memory", "sqlite", "postgres"];

function pick<T extends string>(what: string, value: string | undefined, allowed: readonly T[]): T {
  const found = allowed.find((a) => a === value);
  if (found === undefined)
    throw new Error(`worker: ${what} must be one of ${allowed.join(", ")}, got ${value}`);
  return found;
}

const [implArg, workloadArg, storeArg, paramArg, warmupArg] = process.argv.slice(2);
const impl = pick("impl", implArg, IMPLS);
const c: Case = {
  workload: pick("workload", workloadArg, WORKLOADS),
  store: pick("store", storeArg, STORES),
  param: Number(paramArg),
};
if (!Number.isInteger(c.param) || c.param < 1) throw new Error(`worker: bad param ${paramArg}`);
const warmup = warmupArg === undefined ? warmupCap(c.workload) : Number(warmupArg);

let figures: Figures;
if (ENGINE_WORKLOADS.includes(c.workload)) {
  figures = await runEngineCase(impl, c, warmup);
} else if (impl === "nodestep") {
  const { runNodestep } = await import("./impl-nodestep.js");
  figures = await runNodestep(c, warmup);
} else {
  const { runLanggraph } = await import("./impl-langgraph.js");
  figures = await runLanggraph(c, warmup);
}
process.stdout.write(`${JSON.stringify(figures)}\n`);
