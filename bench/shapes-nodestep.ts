/**
 * Issue 20's graph shapes written with nodestep: `wide` (a state of F fields, 300 sequential
 * nodes each writing one field) and `long` (a sequential graph of N nodes over a small state),
 * each on no store, the memory store or SQLite. LangGraph.js's side: bench/shapes-langgraph.ts.
 *
 * @module
 */
import { z } from "zod";
import { type Figures, repeatFor, SHAPES, type StoreKind } from "./common.js";
import { type OpenStore, openStore } from "./impl-nodestep.js";
import { defineState, END, Graph, node, START } from "./nodestep-api.js";

let threadNo = 0;

interface Built {
  graph: Graph<never>;
  store: OpenStore;
}

/** Graphs and stores built once per process (the warm-up builds them; runs reuse them on new threads). */
const built = new Map<string, Promise<Built>>();

function build(what: string, fields: number, nodes: number, kind: StoreKind): Promise<Built> {
  const key = `${what}/${fields}/${nodes}/${kind}`;
  let b = built.get(key);
  if (!b) {
    b = (async () => {
      const shape: Record<string, z.ZodDefault<z.ZodNumber>> = {};
      for (let f = 0; f < fields; f++) shape[`f${f}`] = z.number().default(0);
      const State = defineState(shape);
      const steps = Array.from({ length: nodes }, (_, i) =>
        node(() => ({ [`f${i % fields}`]: i + 1 }), { name: `n${i}` }),
      );
      const store = await openStore(kind);
      const graph = new Graph(State, {
        name: what,
        maxSteps: nodes + 10,
        ...(store.store ? { stateStore: store.store } : {}),
      }).flow(
        START.to(steps[0]!),
        ...steps.slice(1).map((n, i) => steps[i]!.to(n)),
        steps.at(-1)!.to(END),
      );
      return { graph: graph as unknown as Graph<never>, store };
    })();
    built.set(key, b);
  }
  return b;
}

/**
 * A sequential graph of `nodes` nodes over a state of `fields` number fields (`f0` … ): node i
 * writes field i mod `fields` (the value i + 1). Invokes for {@link SHAPES}.minRunMs per run, each
 * on a new thread of the store (the graph and the store are built once per process); figures:
 * µs per superstep (each node is one superstep), µs per invoke, and the store's logical bytes
 * an invoke added (means over the run's invokes).
 */
async function sequential(
  what: "wide" | "long",
  fields: number,
  nodes: number,
  kind: StoreKind,
): Promise<Partial<Figures>> {
  const { graph, store } = await build(what, fields, nodes, kind);
  const before = await store.logical();
  const g = graph as unknown as {
    invoke(i: object, o: object): Promise<{ state: Record<string, number> }>;
  };
  const run = await repeatFor(SHAPES.minRunMs, () =>
    g.invoke({}, store.store ? { threadId: `t${++threadNo}` } : {}),
  );
  const { state } = run.last;
  const f = `f${(nodes - 1) % fields}`;
  if (state[f] !== nodes) throw new Error(`${what}: field ${f} is ${state[f]}, expected ${nodes}`);
  const out: Partial<Figures> = {
    totalMs: run.totalMs / run.count,
    usPerStep: (run.totalMs * 1000) / (nodes * run.count),
    usPerInvoke: (run.totalMs * 1000) / run.count,
    fields,
    nodes,
    invokes: run.count,
  };
  if (store.store) out.logicalBytes = ((await store.logical()) - before) / run.count;
  return out;
}

/**
 * Close the stores {@link shapeNodestep} opened in this process (a SQLite store's file and its
 * temporary directory are removed), once its runs are done.
 */
export async function closeShapeStores(): Promise<void> {
  const all = [...built.values()];
  built.clear();
  for (const b of all) await (await b).store.close();
}

/** `wide`: param = fields (nodes {@link SHAPES}.wideNodes); `long`: param = nodes (fields {@link SHAPES}.longFields). */
export function shapeNodestep(
  workload: "wide" | "long",
  param: number,
  kind: StoreKind,
): Promise<Partial<Figures>> {
  return workload === "wide"
    ? sequential("wide", param, SHAPES.wideNodes, kind)
    : sequential("long", SHAPES.longFields, param, kind);
}
