/**
 * The cold test mode itself (test/setup/cold-mode.ts), in the `cold`, `cold-sqlite` and
 * `cold-postgres` projects only: each graph call runs on a new graph object over a new store
 * instance on the same data, of the project's store kind; the suites of those projects would
 * otherwise pass warm without saying so.
 */
import { expect, it } from "vitest";
import { z } from "zod";
import { Graph, type GraphOptions, MemoryNodeCache, node, START } from "../src/graph/index.js";
import { END } from "../src/graph/routing.js";
import { GRAPH_OPTIONS } from "../src/graph/run-options.js";
import { PostgresStateStore } from "../src/integrations/postgres/index.js";
import { SqliteStateStore } from "../src/integrations/sqlite/index.js";
import { InMemoryStore } from "../src/memory/in-memory-store.js";
import { defineState, reducer } from "../src/state/index.js";
import { MemoryStateStore } from "../src/stores/index.js";
import type { StateStore } from "../src/stores/types.js";
import { MemoryWorkspace } from "../src/workspace/memory.js";
import { optionsOf } from "./setup/cold-graph.js";
import { coldCounts, coldStoreKind } from "./setup/cold-stores.js";

const State = defineState({
  log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
});

it("every call runs on a new store instance over the same data, of the project's kind", async () => {
  const store = new MemoryStateStore() as StateStore;
  const kind = coldStoreKind();
  const expected = {
    memory: "MemoryStateStore",
    sqlite: "SqliteStateStore",
    postgres: "PostgresStateStore",
  };
  expect(store.constructor.name).toBe(expected[kind]);
  if (kind === "sqlite") expect(store).toBeInstanceOf(SqliteStateStore);
  if (kind === "postgres") expect(store).toBeInstanceOf(PostgresStateStore);

  const seen: StateStore[] = [];
  const step = node(
    (s: typeof State.State, ctx) => {
      seen.push(ctx.stateStore as StateStore);
      return { log: [`run ${s.log.length + 1}`] };
    },
    { name: "step" },
  );
  const g = new Graph(State, { stateStore: store }).flow(START.to(step), step.to(END));
  const before = { ...coldCounts };
  await g.invoke({}, { threadId: "t" });
  const r = await g.invoke({}, { threadId: "t" });
  expect(r.state).toEqual({ log: ["run 1", "run 2"] });
  expect((await g.getState("t")).state).toEqual({ log: ["run 1", "run 2"] });

  expect(coldCounts.calls - before.calls).toBe(3);
  expect(coldCounts.storesOpened - before.storesOpened).toBe(3);
  expect(coldCounts.storesKept - before.storesKept).toBe(0);
  expect(seen).toHaveLength(2);
  expect(seen[0]).not.toBe(store);
  expect(seen[1]).not.toBe(store);
  expect(seen[0]).not.toBe(seen[1]);
  expect(seen[0]!.constructor).toBe(store.constructor);
  // What the calls wrote is the test's store's data, read through its own instance.
  expect((await store.getBranch("t", "main"))?.lastSeq).toBe((await g.history("t")).at(-1)?.seq);
});

it("a store whose methods a test replaced is kept, and counted as kept", async () => {
  const store = new MemoryStateStore() as StateStore;
  let reads = 0;
  const read = store.read.bind(store);
  store.read = (threadId, branchId, options) => {
    reads++;
    return read(threadId, branchId, options);
  };
  const step = node(() => ({ log: ["x"] }), { name: "step" });
  const g = new Graph(State, { stateStore: store }).flow(START.to(step), step.to(END));
  const before = { ...coldCounts };
  await g.invoke({}, { threadId: "t" });
  expect(coldCounts.storesKept - before.storesKept).toBe(1);
  expect(coldCounts.storesOpened - before.storesOpened).toBe(0);
  expect(reads).toBeGreaterThan(0);
});

it("rebuilds a graph with every option it was given (the list is GraphOptions' own)", () => {
  const store = new MemoryStateStore();
  const options: Required<Omit<GraphOptions, "tracer">> & { tracer: boolean } = {
    name: "g",
    stateStore: store,
    workspace: new MemoryWorkspace(),
    memoryStore: new InMemoryStore(),
    maxSteps: 7,
    middleware: [],
    leaseTtlMs: 12_345,
    retry: { maxAttempts: 2 },
    nodeCache: new MemoryNodeCache(),
    tracer: true,
    interruptBefore: ["step"],
    interruptAfter: ["step"],
    maxConcurrency: 3,
    onError: () => undefined,
    input: ["log"],
    output: ["log"],
    checkInput: () => undefined,
  };
  expect(Object.keys(options).sort()).toEqual([...GRAPH_OPTIONS].sort());
  const step = node(() => ({ log: ["x"] }), { name: "step" });
  const g = new Graph(State, options).flow(START.to(step), step.to(END));
  const rebuilt = optionsOf(g as never, store);
  expect(Object.keys(rebuilt).sort()).toEqual([...GRAPH_OPTIONS].sort());
  const again = new Graph(State, rebuilt);
  for (const key of [
    "name",
    "maxSteps",
    "leaseTtlMs",
    "maxConcurrency",
    "interruptBefore",
    "interruptAfter",
    "inputFields",
    "outputFields",
    "workspace",
    "memoryStore",
    "nodeCache",
    "onError",
    "checkInput",
    "middleware",
  ] as const) {
    expect(again[key], key).toEqual(g[key]);
  }
});
