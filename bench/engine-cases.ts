/**
 * Issue 20's engine workloads (`wide`, `long`, `threads`) in a worker: the side's module loaded
 * (only that one), warmed up and measured as the other workloads are (bench/common.ts).
 *
 * @module
 */
import {
  type Case,
  type Figures,
  type Impl,
  measureRuns,
  peakRssMb,
  type Workload,
  warmUp,
} from "./common.js";

/** The workloads this module runs. */
export const ENGINE_WORKLOADS: readonly Workload[] = ["wide", "long", "threads"];

/** Run one case of {@link ENGINE_WORKLOADS} for `impl` and return its figures. */
export async function runEngineCase(impl: Impl, c: Case, warmup: number): Promise<Figures> {
  let once: (param: number) => Promise<Partial<Figures>>;
  if (c.workload === "threads") {
    const run =
      impl === "nodestep"
        ? (await import("./threads-nodestep.js")).threadsNodestep
        : (await import("./threads-langgraph.js")).threadsLanggraph;
    once = (param) => run(param, c.store);
  } else if (c.workload === "wide" || c.workload === "long") {
    const w = c.workload;
    const run =
      impl === "nodestep"
        ? (await import("./shapes-nodestep.js")).shapeNodestep
        : (await import("./shapes-langgraph.js")).shapeLanggraph;
    once = (param) => run(w, param, c.store);
  } else throw new Error(`${c.workload} is not an engine workload`);
  await warmUp(once, c.param, warmup);
  const figures = await measureRuns(() => once(c.param));
  return { impl, ...c, totalMs: 0, ...figures, peakRssMb: peakRssMb() };
}
