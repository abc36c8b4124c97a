/**
 * Join edges and deferred nodes: what waits across supersteps.
 *
 * A join (`join(a, b).to(c)`, LangGraph's `addEdge([a, b], c)`) schedules its targets in the
 * superstep after the one in which the last of its sources finished, counting each source
 * once since the join last fired. A deferred node (`node(fn, { defer: true })`) scheduled
 * next to other tasks waits until a superstep would have nothing else to run.
 *
 * What waits is part of a thread's position (`joins`, `deferred`), written with each commit
 * (`step_committed`, `run_started`, `state_updated`) and read back by the fold, so a run
 * continues from the log alone exactly as it would have in memory.
 *
 * @module
 */
import type { CompiledFlow } from "./compile.js";
import type { DoneResult, TaskResult, TaskSpec } from "./engine-types.js";
import type { Edge } from "./node.js";
import type { AnyNode, TargetRef } from "./routing.js";

/** The sources of a join edge; made by {@link join}, turned into an edge by `.to(target)`. */
export interface JoinSource {
  readonly kind: "join";
  /** `"__join__"`: a join is not a node. */
  readonly name: "__join__";
  /** The nodes (or node names) that must all finish before the join fires. */
  readonly sources: ReadonlyArray<AnyNode | string>;
  /** An edge from the join to `target`: a node, a node name, `END`, or a list of them (no `when()`). */
  to(target: TargetRef | ReadonlyArray<TargetRef>): Edge;
}

/**
 * A join of nodes (LangGraph's `addEdge([a, b], c)`): `join(a, b).to(c)` runs `c` once all of
 * `a` and `b` have finished, in the superstep after the last of them finished, even when they
 * finish in different supersteps. Each source counts once until the join fires; then it
 * starts over. A task counts when it finishes and follows its edges (a `Command` with `goto`
 * routes instead, and does not count). The sources' own edges are taken as well.
 *
 * @param sources - two or more different nodes (or names of nodes in the flow).
 * @returns a join source: call `.to(target)` for the edge to give `graph.flow(...)`.
 * @throws TypeError when a source is neither a node nor a non-empty name (checked here);
 *   GraphConfigError from `flow()` for fewer than two sources, a source named twice, a
 *   source not in the flow, or a `when()` target. See docs/joins.md.
 * @example
 * ```ts
 * graph.flow(START.to([research, outline]), research.to(review), join(review, outline).to(write), write.to(END));
 * ```
 */
export function join(...sources: ReadonlyArray<AnyNode | string>): JoinSource {
  for (const [i, s] of sources.entries()) {
    const ok =
      (typeof s === "string" && s.trim() !== "") ||
      (typeof s === "object" && s !== null && (s as { kind?: unknown }).kind === "node");
    if (!ok) {
      throw new TypeError(
        `join(...sources): source ${i + 1} must be a node or the name of one, got ${s === null ? "null" : typeof s}`,
      );
    }
  }
  const j: JoinSource = {
    kind: "join",
    name: "__join__",
    sources: [...sources],
    to(target: TargetRef | ReadonlyArray<TargetRef>): Edge {
      return { kind: "edge", from: j, to: target };
    },
  };
  return j;
}

/** Whether a value is a {@link JoinSource}. */
export function isJoin(value: unknown): value is JoinSource {
  return (
    typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "join"
  );
}

/** A compiled join: its key in a position's `joins`, its sources and targets by name. */
export interface CompiledJoin {
  /** `"<source>+<source>…><target>+…"`, unique in the flow. */
  readonly key: string;
  readonly sources: readonly string[];
  /** Targets by name (`"__end__"` for END). */
  readonly targets: readonly string[];
}

/** What waits in a position: join progress and deferred tasks (each absent when empty). */
export interface Waiting {
  /** For each join that has heard from some of its sources since it last fired: those sources, in declaration order. */
  joins?: Record<string, string[]>;
  /** Deferred tasks waiting for a superstep with nothing else to run, in the order scheduled. */
  deferred?: TaskSpec[];
}

/**
 * The superstep after one: `next` as the edges scheduled it, plus the joins it completes,
 * minus the deferred tasks that must wait (or, when nothing else is left, the waiting ones).
 * Pure: returns the new tasks (numbered `"<step>:<index>"`) and what waits after them.
 *
 * @param ran - the tasks of the superstep that finished (`null` for none: a start or a goto).
 * @param results - their results (only tasks whose `routes` are `null` count for joins).
 * @param before - what waited before.
 */
export function settleNext(
  flow: CompiledFlow,
  ran: readonly TaskSpec[] | null,
  results: ReadonlyMap<string, TaskResult> | null,
  next: readonly TaskSpec[],
  before: Waiting,
  step: number,
): { next: TaskSpec[]; waiting: Waiting } {
  const tasks = [...next];
  const waiting: Waiting = {};
  if (flow.joins.length > 0) {
    const progress: Record<string, string[]> = {};
    for (const [k, v] of Object.entries(before.joins ?? {})) progress[k] = [...v];
    const finished = new Set<string>();
    for (const t of ran ?? []) {
      const r = results?.get(t.id) as DoneResult | undefined;
      if (r?.kind === "done" && r.routes === null) finished.add(t.name);
    }
    const names = new Set(tasks.filter((t) => t.payload === null).map((t) => t.name));
    for (const j of flow.joins) {
      const heard = new Set(progress[j.key] ?? []);
      for (const s of j.sources) if (finished.has(s)) heard.add(s);
      if (heard.size === j.sources.length) {
        delete progress[j.key];
        for (const name of j.targets) {
          if (name === "__end__" || names.has(name)) continue;
          names.add(name);
          tasks.push({ id: "", name, payload: null });
        }
      } else if (heard.size > 0) progress[j.key] = j.sources.filter((s) => heard.has(s));
    }
    if (Object.keys(progress).length > 0) waiting.joins = progress;
  }
  let out = tasks;
  const held = before.deferred ?? [];
  if (flow.deferred.size > 0 || held.length > 0) {
    const wait = [...held];
    const active: TaskSpec[] = [];
    for (const t of tasks) {
      if (!flow.deferred.has(t.name)) active.push(t);
      else if (t.payload !== null || !wait.some((w) => w.payload === null && w.name === t.name))
        wait.push(t);
    }
    if (active.length > 0) {
      out = active;
      if (wait.length > 0) waiting.deferred = wait.map((t) => ({ ...t, id: "" }));
    } else out = wait;
  }
  return { next: out.map((t, i) => ({ ...t, id: `${step}:${i}` })), waiting };
}

/** A {@link Waiting} as stored in an event's data (`joins`, `deferred`; each left out when empty). */
export function encodeWaiting(w: Waiting | null | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (w?.joins) out.joins = w.joins;
  if (w?.deferred)
    out.deferred = w.deferred.map((t) =>
      t.payload === null ? t.name : { name: t.name, payload: t.payload },
    );
  return out;
}

/** Read back what {@link encodeWaiting} stored. */
export function decodeWaiting(d: Record<string, unknown>): Waiting {
  const out: Waiting = {};
  if (d.joins !== undefined) {
    if (typeof d.joins !== "object" || d.joins === null || Array.isArray(d.joins))
      throw new Error("its joins are not an object");
    out.joins = d.joins as Record<string, string[]>;
  }
  if (d.deferred !== undefined) {
    if (!Array.isArray(d.deferred)) throw new Error("its deferred tasks are not a list");
    out.deferred = d.deferred.map((t) =>
      typeof t === "string"
        ? { id: "", name: t, payload: null }
        : { id: "", ...(t as { name: string; payload: Record<string, unknown> }) },
    );
  }
  return out;
}

/** Set (or remove, when empty) what waits on a position, in place. */
export function setWaiting(pos: Waiting, w: Waiting): void {
  if (w.joins) pos.joins = w.joins;
  else delete pos.joins;
  if (w.deferred) pos.deferred = w.deferred;
  else delete pos.deferred;
}
