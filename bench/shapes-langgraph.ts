/**
 * Issue 20's graph shapes written with LangGraph.js, as bench/shapes-nodestep.ts: `wide` (a
 * state of F fields, 300 sequential nodes each writing one field) and `long` (a sequential
 * graph of N nodes), on no checkpointer, `MemorySaver` or `SqliteSaver`.
 *
 * @module
 */
import {
  Annotation,
  type BaseCheckpointSaver,
  END,
  MemorySaver,
  START,
  StateGraph,
} from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { type Figures, repeatFor, SHAPES, type StoreKind, tempDir } from "./common.js";

let threadNo = 0;

interface Built {
  invoke(input: object, config: object): Promise<Record<string, number>>;
}

const built = new Map<string, Built>();

function saverOf(kind: StoreKind): BaseCheckpointSaver | undefined {
  switch (kind) {
    case "none":
      return undefined;
    case "memory":
      return new MemorySaver();
    case "sqlite": {
      // The directory lives as long as the process (one per case and process).
      const tmp = tempDir("langgraph-bench-");
      process.on("exit", tmp.remove);
      return SqliteSaver.fromConnString(`${tmp.dir}/checkpoints.db`);
    }
    case "postgres":
      throw new Error("the shapes workloads run on none, memory and sqlite");
  }
}

/** Built once per process, as on the nodestep side. */
function build(what: string, fields: number, nodes: number, kind: StoreKind): Built {
  const key = `${what}/${fields}/${nodes}/${kind}`;
  let b = built.get(key);
  if (!b) {
    const spec: Record<string, ReturnType<typeof Annotation<number>>> = {};
    for (let f = 0; f < fields; f++) spec[`f${f}`] = Annotation<number>();
    const State = Annotation.Root(spec);
    // biome-ignore lint/suspicious/noExplicitAny: the node names are built at run time
    let g: any = new StateGraph(State);
    for (let i = 0; i < nodes; i++) g = g.addNode(`n${i}`, () => ({ [`f${i % fields}`]: i + 1 }));
    g = g.addEdge(START, "n0");
    for (let i = 1; i < nodes; i++) g = g.addEdge(`n${i - 1}`, `n${i}`);
    g = g.addEdge(`n${nodes - 1}`, END);
    b = g.compile({ checkpointer: saverOf(kind) }) as Built;
    built.set(key, b);
  }
  return b;
}

async function sequential(
  what: "wide" | "long",
  fields: number,
  nodes: number,
  kind: StoreKind,
): Promise<Partial<Figures>> {
  const graph = build(what, fields, nodes, kind);
  // The initial values, as nodestep's defaults (0 for every field).
  const input: Record<string, number> = {};
  for (let f = 0; f < fields; f++) input[`f${f}`] = 0;
  const run = await repeatFor(SHAPES.minRunMs, () =>
    graph.invoke(input, {
      recursionLimit: nodes + 10,
      configurable: { thread_id: `t${++threadNo}` },
    }),
  );
  const state = run.last;
  const f = `f${(nodes - 1) % fields}`;
  if (state[f] !== nodes) throw new Error(`${what}: field ${f} is ${state[f]}, expected ${nodes}`);
  return {
    totalMs: run.totalMs / run.count,
    usPerStep: (run.totalMs * 1000) / (nodes * run.count),
    usPerInvoke: (run.totalMs * 1000) / run.count,
    fields,
    nodes,
    invokes: run.count,
  };
}

/** `wide`: param = fields (nodes {@link SHAPES}.wideNodes); `long`: param = nodes (fields {@link SHAPES}.longFields). */
export function shapeLanggraph(
  workload: "wide" | "long",
  param: number,
  kind: StoreKind,
): Promise<Partial<Figures>> {
  return workload === "wide"
    ? sequential("wide", param, SHAPES.wideNodes, kind)
    : sequential("long", SHAPES.longFields, param, kind);
}
