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
  SHAPES,
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
  // wide and long: the engine reaches its optimized code only after some 10,000 supersteps
  // (measured when a run was one invoke of 300 nodes: 3.2 µs per step at 200 fields after 30
  // runs, 10–20 µs after the 5 runs that 300 ms allowed), the loop workload's warm-up; so at
  // least 10,000 / nodes runs, within the usual two seconds (a run is now 20 ms of invokes:
  // nodestep's 34 runs take about 0.7 s; LangGraph.js's runs take up to a second each, and
  // get fewer).
  const shape = c.workload === "wide" || c.workload === "long";
  const steps = c.workload === "wide" ? SHAPES.wideNodes : c.param;
  await warmUp(once, c.param, warmup, shape ? Math.ceil(10_000 / steps) : 3);
  const figures = await measureRuns(() => once(c.param));
  const peak = peakRssMb();
  // (The stores the shapes opened: a SQLite one's temporary directory was left behind.)
  if (shape && impl === "nodestep") await (await import("./shapes-nodestep.js")).closeShapeStores();
  return { impl, ...c, totalMs: 0, ...figures, peakRssMb: peak };
}
