/**
 * Adversarial cases of the compact event log (update codec, messages codec, tasks by name,
 * no-op primitive writes left out): for each, the state folded from the log — now, after
 * every committed superstep (time travel) and in another process (a new graph over a second
 * handle, with and without a snapshot) — is `JSON.stringify`-equal to the state the live run
 * had, key order included.
 */
import { expect, it } from "vitest";
import { z } from "zod";
import { buildReactAgent } from "../../src/agents/index.js";
import {
  AIMessage,
  HumanMessage,
  ScriptedChat,
  SystemMessage,
  ToolMessage,
} from "../../src/chat/index.js";
import {
  Command,
  END,
  Graph,
  node,
  type RunOptions,
  Send,
  START,
  subgraph,
  when,
} from "../../src/graph/index.js";
import { SNAPSHOT_AFTER_EVENTS } from "../../src/graph/journal.js";
import { loadPosition } from "../../src/graph/load-position.js";
import type { JsonValue } from "../../src/json/index.js";
import { applyUpdate, prepareUpdate } from "../../src/state/define-state.js";
import {
  defineState,
  messagesField,
  RemoveMessage,
  Replace,
  reducer,
  type StateDefinition,
} from "../../src/state/index.js";
import { decodeUpdate, encodeUpdate } from "../../src/state/update-codec.js";
import type { StateStore } from "../../src/stores/types.js";
import { tool } from "../../src/tools/index.js";
import { describeStores, type StoreFixture } from "./stores.js";

type AnyGraph = Graph<StateDefinition | null>;
type S = Record<string, unknown>;

const json = (v: unknown) => JSON.stringify(v);

/**
 * The live states of one branch of a thread: the JSON of the state after each committed
 * superstep (streamed in "values" mode) and at the end of the last run.
 */
class Live {
  values: string[] = [];
  last: string | null = null;
  /** The graph of the last run, which keeps the branch's position in memory. */
  graph: AnyGraph | null = null;
  constructor(
    readonly threadId: string,
    readonly branchId = "main",
  ) {}

  async run(graph: AnyGraph, input: S | null, options: RunOptions = {}) {
    this.graph = graph;
    const r = await graph.invoke(input, {
      threadId: this.threadId,
      branchId: this.branchId,
      modes: ["values"],
      onEvent: (e) => {
        if (e.mode === "values" && e.taskId === null && !e.node?.includes("/"))
          this.values.push(json(e.data));
      },
      ...options,
    });
    this.last = json(r.state);
    return r;
  }

  /** A failing run: its committed supersteps still count. */
  async fail(graph: AnyGraph, input: S | null, options: RunOptions = {}): Promise<Error> {
    try {
      await this.run(graph, input, options);
    } catch (e) {
      return e as Error;
    }
    throw new Error("expected the run to fail");
  }

  /** A branch forked after the `n`-th committed superstep of this one. */
  forkAfter(n: number, branchId: string): Live {
    const f = new Live(this.threadId, branchId);
    f.values = this.values.slice(0, n);
    f.last = this.values[n - 1] ?? null;
    return f;
  }
}

/**
 * A reader in another process (a new graph over a second handle on the store) folds the
 * branch to the live state now and after every committed superstep; every event folds.
 */
async function expectFolds(
  fx: StoreFixture,
  store: StateStore,
  makeReader: (store: StateStore) => AnyGraph,
  live: Live,
): Promise<void> {
  const reader = makeReader(await fx.reopen(store));
  const { threadId, branchId } = live;
  const events = await reader.history(threadId, { branchId });
  const commits = events.filter((e) => e.type === "step_committed");
  const atCommits: string[] = [];
  for (const e of events) {
    const s = await reader.getState(threadId, { branchId, eventId: e.id });
    if (e.type === "step_committed") atCommits.push(json(s.state));
  }
  expect(commits.length).toBe(live.values.length);
  expect(atCommits).toEqual(live.values);
  const now = await reader.getState(threadId, { branchId });
  expect(json(now.state)).toBe(live.last);
  // Step, next tasks, interrupts, status: as the graph that ran keeps them in memory.
  if (live.graph) expect(now).toEqual(await live.graph.getState(threadId, { branchId }));
  // A second cold reader (a snapshot may now exist) folds to the same state.
  const again = makeReader(await fx.reopen(store));
  expect(json((await again.getState(threadId, { branchId })).state)).toBe(live.last);
}

/**
 * Fork the branch after each of its events, continue each fork (answering every interrupt
 * with `answer(key)`) and check that it folds back to its live state.
 */
async function forkEverywhere(
  fx: StoreFixture,
  store: StateStore,
  make: (store: StateStore) => AnyGraph,
  makeReader: (store: StateStore) => AnyGraph,
  live: Live,
  answer: (key: string) => JsonValue,
): Promise<number> {
  const events = await store.read(live.threadId, live.branchId);
  let commits = 0;
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    if (e.type === "step_committed") commits++;
    const g = make(store);
    const branchId = `${live.branchId}-at${i}`;
    await g.fork(live.threadId, { eventId: e.id, branchId });
    const branch = live.forkAfter(commits, branchId);
    let r = await branch.run(g, null);
    for (let n = 0; r.status === "interrupted" && n < 5; n++) {
      r = await branch.run(g, null, {
        resume: Object.fromEntries(r.interrupts.map((x) => [x.key, answer(x.key)])),
      });
    }
    expect(r.status).toBe("completed");
    await expectFolds(fx, store, makeReader, branch);
  }
  return events.length;
}

const plain = (store: StateStore) => new Graph(null, { stateStore: store }) as AnyGraph;

describeStores("the compact log folds back to the live state", (fx) => {
  it("plain-object state with fields named like the event data's keys", async () => {
    const store = await fx.open();
    const make = (s: StateStore) => {
      const a = node(
        () => ({
          same: ["x"],
          next: ["a", "b"],
          update: { same: { next: ["update", 0] } },
          routes: [{ name: "b", payload: null }],
          input: null,
          tasks: ["a"],
          resume: { k: 1 },
          format: 1,
          state: {},
          $nodestep: "replace",
        }),
        { name: "a" },
      );
      const b = node(
        (st: S) => ({
          same: (st.same as string[]).concat("y"),
          next: null,
          update: [{ next: ["z"] }],
          routes: null,
          input: "",
          known: [{ same: ["x"] }],
        }),
        { name: "b" },
      );
      const c = node(() => ({ caches: [[]], next: ["z"], answers: [] }), { name: "c" });
      return (plain(s) as AnyGraph).flow(START.to(a), a.to([b, c]), b.to(END), c.to(END));
    };
    const live = new Live("t");
    await live.run(make(store), { input: { same: ["next"] }, update: 0, next: [["a"]] });
    await live.run(make(store), { same: ["q"], routes: [] });
    await expectFolds(fx, store, plain, live);
  });

  it("fields named like Object.prototype's keys, beside a repeated list", async () => {
    const store = await fx.open();
    const make = (s: StateStore) => {
      const a = node(
        () => ({
          a: [{ b: [1], toString: ["t"] }],
          b: [1],
          constructor: "c",
          toString: ["t"],
          valueOf: 0,
          hasOwnProperty: [{ constructor: [2] }],
          constructor2: [2],
        }),
        { name: "a" },
      );
      // A node's update read from JSON may carry a "__proto__" key.
      const b = node(() => JSON.parse('{"__proto__": {"p": [1]}, "q": [{"p": [1]}], "p": [1]}'), {
        name: "b",
      });
      const c = node(() => ({ m: [{ valueOf: [3] }], valueOf: [3], toString: null }), {
        name: "c",
      });
      return plain(s).flow(START.to(a), a.to(b), b.to(c), c.to(END));
    };
    const live = new Live("t");
    await live.run(make(store), { isPrototypeOf: [{ constructor: [0] }], constructor: [0] });
    expect(JSON.parse(live.last!).constructor).toBe("c");
    await expectFolds(fx, store, plain, live);
  });

  it("a field that repeats a list of the same update, with other new fields between", async () => {
    const store = await fx.open();
    const make = (s: StateStore) => {
      const a = node(() => ({ a: [{ b: [1] }], c: 1, b: [1] }), { name: "a" });
      const b = node(
        () => ({
          p: [{ x: [1, 2] }],
          q: [{ y: ["2"] }],
          x: [1, 2],
          y: ["2"],
          r: { z: [{}] },
          w: true,
          z: [{}],
        }),
        { name: "b" },
      );
      return plain(s).flow(START.to(a), a.to(b), b.to(END));
    };
    const live = new Live("t");
    await live.run(make(store), { start: 1, m: [{ n: [0] }], o: 0, n: [0] });
    expect(Object.keys(JSON.parse(live.last!))).toEqual([
      "start",
      "m",
      "o",
      "n",
      "a",
      "c",
      "b",
      "p",
      "q",
      "x",
      "y",
      "r",
      "w",
      "z",
    ]);
    await expectFolds(fx, store, plain, live);
  });

  it("lists of lists, and lists equal as JSON to a key of another type's item", async () => {
    const store = await fx.open();
    const State = defineState({
      grid: z.array(z.object({ rows: z.array(z.array(z.number())) })).default([]),
      rows: reducer(z.array(z.array(z.number())).default([]), (a, u: number[][]) => [...a, ...u]),
      names: z.array(z.string()).optional(),
      holder: z
        .object({ names: z.array(z.string()), rows: z.array(z.array(z.number())) })
        .optional(),
      empty: z.array(z.array(z.never())).optional(),
    });
    const make = (s: StateStore) => {
      const a = node(
        () => ({
          grid: [{ rows: [[1, 2], [3]] }, { rows: [[]] }],
          rows: [[]],
          holder: { names: ["1"], rows: [[1, 2], [3]] },
          names: ["1"],
          empty: [[]],
        }),
        { name: "a" },
      );
      const b = node(() => ({ grid: [{ rows: [[9]] }], rows: [[9]], names: ["1"] }), {
        name: "b",
      });
      return new Graph(State, { stateStore: s }).flow(START.to(a), a.to(b), b.to(END));
    };
    const live = new Live("t");
    await live.run(make(store), {});
    expect(JSON.parse(live.last!).rows).toEqual([[], [9]]);
    await expectFolds(fx, store, (s) => new Graph(State, { stateStore: s }), live);
  });

  it("messages with every optional key set, empty strings, RemoveMessage and Replace", async () => {
    const store = await fx.open();
    const State = defineState({
      messages: messagesField(),
      toolCalls: z.array(z.unknown()).default([]),
      note: z.string().nullable().optional(),
    });
    const full = AIMessage({
      id: "ai-1",
      content: "",
      refusal: "",
      toolCalls: [
        { id: "c1", name: "f", arguments: {}, argumentsError: "Invalid JSON" },
        { id: "c2", name: "g", arguments: { b: 1, a: [{}] }, argumentsError: null },
        { id: "c3", name: "h", arguments: {}, argumentsError: null },
      ],
      finishReason: "",
      usage: { reasoningTokens: 1, raw: { z: 1, a: { b: null } } },
    });
    const make = (s: StateStore) => {
      const a = node(
        () => ({
          messages: [
            SystemMessage({ content: "" }),
            { content: "out of order", id: "h-1", type: "human" },
            full,
            ToolMessage({ id: "t-1", content: "", name: "f", toolCallId: "c1", arguments: {} }),
            ToolMessage({ content: null, toolCallId: "c2", arguments: { a: 1, b: {} } }),
          ],
          toolCalls: full.toolCalls,
          note: null,
        }),
        { name: "a" },
      );
      const b = node(
        () => ({
          messages: [RemoveMessage("h-1"), AIMessage({ id: "ai-1", content: "edited" })],
          note: "",
        }),
        { name: "b" },
      );
      const c = node(
        () => ({
          messages: Replace([HumanMessage({ id: "h-2", content: "" }), full]),
          toolCalls: [],
          note: null,
        }),
        { name: "c" },
      );
      const d = node(() => ({ messages: full, toolCalls: full.toolCalls }), { name: "d" });
      return new Graph(State, { stateStore: s }).flow(
        START.to(a),
        a.to(b),
        b.to(c),
        c.to(d),
        d.to(END),
      );
    };
    const live = new Live("t");
    await live.run(make(store), { messages: [HumanMessage({ id: "q", content: "" }), full] });
    await expectFolds(fx, store, (s) => new Graph(State, { stateStore: s }), live);
  });

  it("a custom reducer codec, as a source of a repeat and under Replace", async () => {
    const store = await fx.open();
    const Entry = z.object({ tags: z.array(z.string()), n: z.number() });
    type Entry = z.infer<typeof Entry>;
    const State = defineState({
      log: reducer(z.array(Entry).default([]), (a, u: Entry[]) => [...a, ...u], {
        update: z.array(Entry),
        // Stored as [tags joined by "|", n] pairs.
        codec: {
          encode: (u) => (u as Entry[]).map((e) => [e.tags.join("|"), e.n]),
          decode: (s) =>
            (s as JsonValue[]).map((e) =>
              Array.isArray(e)
                ? {
                    tags: (e[0] as string) === "" ? [] : (e[0] as string).split("|"),
                    n: e[1] as JsonValue,
                  }
                : e,
            ),
        },
      }),
      tags: z.array(z.string()).optional(),
      total: reducer(z.number().default(0), (a, b: number) => a + b),
    });
    const make = (s: StateStore) => {
      const a = node(
        () => ({
          log: [
            { tags: ["x", "y"], n: 1 },
            { tags: [], n: 2 },
          ],
          tags: ["x", "y"],
          total: 0,
        }),
        { name: "a" },
      );
      const b = node(() => ({ log: Replace([{ tags: ["z"], n: 3 }]), tags: ["z"], total: 5 }), {
        name: "b",
      });
      return new Graph(State, { stateStore: s }).flow(START.to(a), a.to(b), b.to(END));
    };
    const live = new Live("t");
    await live.run(make(store), { log: [{ tags: ["i"], n: 0 }], tags: ["i"] });
    await expectFolds(fx, store, (s) => new Graph(State, { stateStore: s }), live);
  });

  it("Send fan-out with payloads, a single Send task, Command goto", async () => {
    const store = await fx.open();
    const State = defineState({
      items: z.array(z.number()).default([]),
      item: z.number().default(0),
      label: z.string().nullable().default(null),
      results: reducer(z.array(z.number()).default([]), (a, u: number[]) => [...a, ...u]),
      seen: z.number().optional(),
    });
    const make = (s: StateStore) => {
      const fan = node(
        (st: typeof State.State) => st.items.map((i) => new Send("work", { item: i, label: "p" })),
        { name: "fan", goto: ["work"] },
      );
      const work = node(
        // Writes the payload's item back (not the state's), the state's label (not the payload's).
        (st: typeof State.State) => ({ results: [st.item * 10], item: st.item, label: null }),
        { name: "work" },
      );
      const one = node(
        () =>
          new Command({
            update: { label: "one", seen: 1 },
            goto: [new Send("solo", { item: 0, label: "payload" })],
          }),
        { name: "one", goto: ["solo"] },
      );
      const solo = node(
        // The payload's item (0) equals the state's item only when the state's item is 0.
        (st: typeof State.State) => ({ item: st.item, label: "one", seen: 1 }),
        { name: "solo" },
      );
      const fin = node(() => new Command({ update: { item: 7 }, goto: END }), {
        name: "fin",
        goto: [END],
      });
      return new Graph(State, { stateStore: s }).flow(START.to(fan), work.to(one), solo.to(fin));
    };
    const live = new Live("t");
    await live.run(make(store), { items: [1, 2, 3], item: 5 });
    const events = await store.read("t", "main");
    const firstCommit = events.find((e) => e.type === "step_committed")!;
    expect((firstCommit.data as { next: unknown[] }).next).toEqual([
      { id: "1:0", name: "work", payload: { item: 1, label: "p" } },
      { id: "1:1", name: "work", payload: { item: 2, label: "p" } },
      { id: "1:2", name: "work", payload: { item: 3, label: "p" } },
    ]);
    await live.run(make(store), { items: [4], item: 0 });
    await expectFolds(fx, store, (s) => new Graph(State, { stateStore: s }), live);
  });

  it("multi-task supersteps writing new fields, pending writes kept over a failure", async () => {
    const store = await fx.open();
    let failB = true;
    const make = (s: StateStore) => {
      const a = node(() => ({ fromA: [{ k: [1] }], k: [1], shared: "a" }), { name: "a" });
      const b = node(
        async () => {
          await new Promise((r) => setTimeout(r, 20));
          if (failB) throw new Error("b failed");
          return { fromB: { k: [2] }, shared: "b", k: [2] };
        },
        { name: "b" },
      );
      const c = node(() => ({ fromC: null, shared: "a" }), { name: "c" });
      return plain(s).flow(START.to([a, b]), a.to(c), b.to(c), c.to(END));
    };
    const live = new Live("t");
    await live.fail(make(store), { start: true });
    const events = await store.read("t", "main");
    expect(events.map((e) => e.type)).toEqual(["run_started", "task_finished", "run_failed"]);
    failB = false;
    await live.run(make(store), null);
    await expectFolds(fx, store, plain, live);
    // b, left alone in its superstep on the second run, is written as a pending write (no no-op elided).
    expect((await store.read("t", "main")).map((e) => e.type)).toEqual([
      "run_started",
      "task_finished",
      "run_failed",
      "run_started",
      "task_finished",
      "step_committed",
      "step_committed",
      "run_finished",
    ]);
    expect(await forkEverywhere(fx, store, make, plain, live, () => null)).toBe(8);
  });

  it("a failed single-task step then invoke(null); a reducer that fails on apply", async () => {
    const store = await fx.open();
    let fail = true;
    let remove = true;
    const State = defineState({
      messages: messagesField(),
      n: z.number().default(0),
      flag: z.boolean().optional(),
    });
    const make = (s: StateStore) => {
      const a = node(() => ({ n: 1, flag: false }), { name: "a" });
      const b = node(
        () => {
          if (fail) throw new Error("b failed");
          return { n: 1, flag: false, messages: [AIMessage({ id: "m", content: "x" })] };
        },
        { name: "b" },
      );
      const c = node(
        () => ({
          n: 2,
          messages: remove ? [RemoveMessage("nope")] : [AIMessage({ id: "m", content: "y" })],
        }),
        { name: "c" },
      );
      return new Graph(State, { stateStore: s }).flow(START.to(a), a.to(b), b.to(c), c.to(END));
    };
    const live = new Live("t");
    await live.fail(make(store), { n: 0 });
    fail = false;
    await live.fail(make(store), null);
    remove = false;
    await live.run(make(store), null);
    await expectFolds(fx, store, (s) => new Graph(State, { stateStore: s }), live);
  });

  it("an interrupt in a node, then resume; time travel and a fork on every commit", async () => {
    const store = await fx.open();
    const State = defineState({
      answer: z.string().nullable().default(null),
      steps: reducer(z.array(z.string()).default([]), (a, u: string[]) => [...a, ...u]),
      extra: z.array(z.object({ steps: z.array(z.string()) })).optional(),
    });
    const make = (s: StateStore) => {
      const ask = node(
        (_st: typeof State.State, ctx) => {
          const answer = ctx.interrupt<string>({ q: "?" }, { key: "q" });
          return { extra: [{ steps: ["ask"] }], steps: ["ask"], answer };
        },
        { name: "ask" },
      );
      const pre = node(() => ({ steps: ["pre"], answer: null }), { name: "pre" });
      const post = node((st: typeof State.State) => ({ steps: [`post ${st.answer}`] }), {
        name: "post",
      });
      return new Graph(State, { stateStore: s }).flow(
        START.to(pre),
        pre.to(ask),
        ask.to(post),
        post.to(END),
      );
    };
    const live = new Live("t");
    const r1 = await live.run(make(store), { steps: ["in"] });
    expect(r1.status).toBe("interrupted");
    await expectFolds(fx, store, (s) => new Graph(State, { stateStore: s }), live);
    await live.run(make(store), null, { resume: { q: "yes" } });
    expect(JSON.parse(live.last!).steps).toEqual(["in", "pre", "ask", "post yes"]);
    await expectFolds(fx, store, (s) => new Graph(State, { stateStore: s }), live);

    // Fork after each committed superstep and run the rest again on the branch.
    const events = await store.read("t", "main");
    const commits = events.filter((e) => e.type === "step_committed");
    for (let i = 0; i < commits.length; i++) {
      const g = make(store);
      const branch = live.forkAfter(i + 1, `f${i}`);
      await g.fork("t", { eventId: commits[i]!.id, branchId: `f${i}` });
      const r = await branch.run(g, null, {});
      if (r.status === "interrupted") await branch.run(g, null, { resume: { q: `no ${i}` } });
      await expectFolds(fx, store, (s) => new Graph(State, { stateStore: s }), branch);
    }
    // Fork after every event, the pause and the resume included.
    const reader = (s: StateStore) => new Graph(State, { stateStore: s });
    await forkEverywhere(fx, store, make, reader, live, (k) => `at ${k}`);
  });

  it("an interrupt in the tool runner, then resume", async () => {
    const store = await fx.open();
    const ask = tool((args, ctx) => `person said ${ctx.interrupt<string>({ q: args.q })}`, {
      name: "ask",
      description: "Ask.",
      input: z.object({ q: z.string() }),
    });
    const lookup = tool(() => "", {
      name: "lookup",
      description: "Look.",
      input: z.object({ id: z.string() }),
    });
    const chat = new ScriptedChat([
      {
        toolCalls: [
          { id: "c1", name: "lookup", arguments: { id: "1" } },
          { id: "c2", name: "ask", arguments: { q: "ok?" } },
          { id: "c3", name: "lookup", arguments: { id: "" } },
        ],
        usage: { inputTokens: 1 },
      },
      { content: "", refusal: "no" },
      { content: "done" },
    ]);
    const agent = buildReactAgent(chat, { tools: [ask, lookup], stateStore: store });
    const { AgentState } = await import("../../src/agents/index.js");
    const live = new Live("t");
    const r1 = await live.run(agent as AnyGraph, { messages: [HumanMessage({ content: "" })] });
    expect(r1.status).toBe("interrupted");
    await expectFolds(fx, store, (s) => new Graph(AgentState, { stateStore: s }), live);
    const key = r1.interrupts[0]!.key;
    await live.run(agent as AnyGraph, null, { resume: { [key]: "yes" } });
    await live.run(agent as AnyGraph, { messages: [HumanMessage({ content: "again" })] });
    await expectFolds(fx, store, (s) => new Graph(AgentState, { stateStore: s }), live);
  });

  it("no-op writes: a value written back later, a field that starts absent, null over null", async () => {
    const store = await fx.open();
    const State = defineState({
      x: z.number().default(1),
      y: z.string().nullable().optional(),
      z: z.boolean().nullable().default(null),
      n: reducer(z.number().default(0), (a, b: number) => a + b),
    });
    const make = (s: StateStore) => {
      const a = node(() => ({ x: 2, y: null, z: null, n: 0 }), { name: "a" });
      const b = node(() => ({ x: 2, y: null, z: false, n: 0 }), { name: "b" });
      const c = node(() => ({ x: 1, y: "", z: null }), { name: "c" });
      const d = node(() => ({ x: 1, y: "", z: null, n: 1 }), { name: "d" });
      return new Graph(State, { stateStore: s }).flow(
        START.to(a),
        a.to(b),
        b.to(c),
        c.to(d),
        d.to(END),
      );
    };
    const live = new Live("t");
    await live.run(make(store), {});
    await live.run(make(store), { x: 1, y: null });
    await expectFolds(fx, store, (s) => new Graph(State, { stateStore: s }), live);
    // Plain-object state: a field absent, then set, then set to the same value.
    const p = (s: StateStore) => {
      const a = node(() => ({ v: null, w: 0 }), { name: "a" });
      const b = node(() => ({ v: null, w: 0, u: "u" }), { name: "b" });
      return plain(s).flow(START.to(a), a.to(b), b.to(END));
    };
    const live2 = new Live("p");
    await live2.run(p(store), { w: 0 });
    await live2.run(p(store), { v: 1 });
    await expectFolds(fx, store, plain, live2);
  });

  it("a single Send task whose payload overlays a field the node writes back", async () => {
    const store = await fx.open();
    const make = (s: StateStore) => {
      const go = node(() => new Send("w", { v: 2, fresh: "p" }), { name: "go", goto: ["w"] });
      // Writes the state's v (1) while its input shows the payload's (2): elided or not, the state keeps 1.
      const w = node((st: S) => ({ v: (st.v as number) - 1, fresh: st.fresh, u: 1 }), {
        name: "w",
      });
      const w2 = node((st: S) => ({ v: st.v, fresh: "p" }), { name: "w2" });
      return plain(s).flow(START.to(go), w.to(w2), w2.to(END));
    };
    const live = new Live("t");
    await live.run(make(store), { v: 1 });
    expect(live.last).toBe(json({ v: 1, fresh: "p", u: 1 }));
    await expectFolds(fx, store, plain, live);
  });

  it("a stable subgraph on the parent's store", async () => {
    const store = await fx.open();
    const Child = defineState({
      messages: messagesField(),
      toolCalls: z.array(z.unknown()).default([]),
      count: z.number().default(0),
    });
    const Parent = defineState({
      messages: messagesField(),
      count: z.number().default(0),
    });
    const make = (s: StateStore) => {
      const think = node(
        (st: typeof Child.State) => {
          const ai = AIMessage({
            content: "",
            toolCalls: [{ id: `c${st.count}`, name: "f", arguments: {}, argumentsError: null }],
          });
          return { messages: [ai], toolCalls: ai.toolCalls, count: st.count + 1 };
        },
        { name: "think" },
      );
      const child = new Graph(Child).flow(START.to(think), think.to(END));
      const sub = subgraph("sub", child, { share: ["messages", "count"], childThread: "stable" });
      return new Graph(Parent, { stateStore: s }).flow(START.to(sub), sub.to(END));
    };
    const live = new Live("t");
    await live.run(make(store), { messages: [HumanMessage({ content: "" })] });
    await live.run(make(store), { count: 5 });
    await expectFolds(fx, store, (s) => new Graph(Parent, { stateStore: s }), live);
    // The child's thread folds to what the child had when it last ended: its messages and count are the parent's.
    const reader = new Graph(Child, { stateStore: await fx.reopen(store) });
    const child = (await reader.getState("t:sub")).state;
    const parent = JSON.parse(live.last!);
    expect(json(child.messages)).toBe(json(parent.messages));
    expect(child.count).toBe(parent.count);
    expect(json(child.toolCalls)).toBe(
      json([{ id: "c5", name: "f", arguments: {}, argumentsError: null }]),
    );
  });

  it("a long thread: cold loads through a snapshot, a second graph continues it", async () => {
    const store = await fx.open();
    const State = defineState({
      n: z.number().default(0),
      parity: z.string().nullable().default(null),
      seen: reducer(z.array(z.number()).default([]), (a, u: number[]) => [...a, ...u]),
      last: z.array(z.object({ seen: z.array(z.number()) })).optional(),
      done: z.boolean().optional(),
    });
    const make = (s: StateStore) => {
      const step = node(
        (st: typeof State.State) => ({
          n: st.n + 1,
          parity: st.n % 4 < 2 ? "low" : "high",
          last: [{ seen: [st.n] }],
          seen: [st.n],
          done: st.n + 1 >= 40 ? true : undefined,
        }),
        { name: "step" },
      );
      return new Graph(State, { stateStore: s, maxSteps: 200 }).flow(
        START.to(step),
        step.to(when((st: typeof State.State) => st.n % 40 !== 0, step, { otherwise: END })),
      );
    };
    const live = new Live("t");
    await live.run(make(store), {});
    await live.run(make(store), { parity: "low" });
    const events = await store.read("t", "main");
    expect(events.length).toBeGreaterThanOrEqual(SNAPSHOT_AFTER_EVENTS);
    await expectFolds(fx, store, (s) => new Graph(State, { stateStore: s }), live);
    // Readers write nothing: each cold load above folded the whole log.
    expect(await store.loadSnapshot("t", "main")).toBeNull();
    // Another graph continues the thread: its load folds the log and keeps a snapshot; the
    // first graph continues after it, and the cold readers below read the snapshot plus the tail.
    const other = make(await fx.reopen(store));
    await live.run(other, { n: 40 });
    expect((await store.loadSnapshot("t", "main"))?.seq).toBe(events.length);
    await live.run(make(store), { n: 80, parity: null });
    await expectFolds(fx, store, (s) => new Graph(State, { stateStore: s }), live);
  });

  it("parallel interrupts of a superstep, answered one at a time; a fork after each event", async () => {
    const store = await fx.open();
    const State = defineState({
      log: reducer(z.array(z.string()).default([]), (a, u: string[]) => [...a, ...u]),
      a: z.string().optional(),
      b: z.string().optional(),
      c: z.string().optional(),
    });
    const make = (s: StateStore) => {
      const a = node(
        (_st: typeof State.State, ctx) => ({
          a: ctx.interrupt<string>("a?", { key: "a" }),
          log: ["a"],
        }),
        { name: "a" },
      );
      const b = node(
        (_st: typeof State.State, ctx) => ({
          log: ["b"],
          b: ctx.interrupt<string>("b?", { key: "b" }),
        }),
        { name: "b" },
      );
      const c = node(() => ({ c: "c", log: ["c"] }), { name: "c" });
      const d = node((st: typeof State.State) => ({ log: [`${st.a}${st.b}${st.c}`] }), {
        name: "d",
      });
      return new Graph(State, { stateStore: s }).flow(
        START.to([a, b, c]),
        a.to(d),
        b.to(d),
        c.to(d),
        d.to(END),
      );
    };
    const live = new Live("t");
    // While paused, a cold reader sees what the graph that ran keeps in memory.
    const samePosition = async (g: AnyGraph) => {
      const reader = new Graph(State, { stateStore: await fx.reopen(store) });
      expect(await reader.getState("t")).toEqual(await g.getState("t"));
    };
    const g1 = make(store);
    const r1 = await live.run(g1, {});
    expect(r1.interrupts.map((i) => i.key)).toEqual(["a", "b"]);
    await samePosition(g1);
    const g2 = make(store);
    const r2 = await live.run(g2, null, { resume: { a: "A" } });
    expect(r2.interrupts.map((i) => i.key)).toEqual(["b"]);
    await samePosition(g2);
    expect((await g2.getState("t")).next).toEqual(["a", "b", "c"]);
    await live.run(make(store), null, { resume: { b: "B" } });
    expect(JSON.parse(live.last!)).toEqual({ log: ["a", "b", "c", "ABc"], a: "A", b: "B", c: "c" });
    const reader = (s: StateStore) => new Graph(State, { stateStore: s });
    await expectFolds(fx, store, reader, live);
    await forkEverywhere(fx, store, make, reader, live, (k) => k.toUpperCase());
  });

  it("a fresh subgraph that pauses inside the child, then resumes", async () => {
    const store = await fx.open();
    const State = defineState({
      messages: messagesField(),
      toolCalls: z.array(z.unknown()).default([]),
      ok: z.boolean().nullable().default(null),
    });
    const make = (s: StateStore) => {
      const ask = node(
        (_st: typeof State.State, ctx) => {
          const ok = ctx.interrupt<boolean>("ok?", { key: "ok" });
          const ai = AIMessage({
            content: "",
            toolCalls: [{ id: "c", name: "f", arguments: { ok }, argumentsError: null }],
          });
          return { messages: ai, toolCalls: ai.toolCalls, ok };
        },
        { name: "ask" },
      );
      const child = new Graph(State).flow(START.to(ask), ask.to(END));
      const sub = subgraph("sub", child, {
        share: ["messages", "toolCalls", "ok"],
        childThread: "fresh",
      });
      const after = node(() => ({ ok: null, toolCalls: [] }), { name: "after" });
      return new Graph(State, { stateStore: s }).flow(START.to(sub), sub.to(after), after.to(END));
    };
    const live = new Live("t");
    const r1 = await live.run(make(store), { messages: [HumanMessage({ content: "go" })] });
    expect(r1.status).toBe("interrupted");
    await live.run(make(store), null, { resume: { [r1.interrupts[0]!.key]: true } });
    const reader = (s: StateStore) => new Graph(State, { stateStore: s });
    await expectFolds(fx, store, reader, live);
  });

  it("a stable subgraph that pauses, resumed by a cold graph; the child's thread folds too", async () => {
    const store = await fx.open();
    const State = defineState({
      messages: messagesField(),
      toolCalls: z.array(z.unknown()).default([]),
      turns: z.number().default(0),
    });
    const makeChild = (): AnyGraph => {
      const ask = node(
        (st: typeof State.State, ctx) => {
          const answer = ctx.interrupt<string>("more?", { key: `q${st.turns}` });
          const ai = AIMessage({
            content: answer,
            toolCalls: [{ id: `c${st.turns}`, name: "f", arguments: {}, argumentsError: null }],
          });
          return { messages: [ai], toolCalls: ai.toolCalls, turns: st.turns + 1 };
        },
        { name: "ask" },
      );
      return new Graph(State).flow(START.to(ask), ask.to(END)) as AnyGraph;
    };
    const make = (s: StateStore) => {
      const sub = subgraph("sub", makeChild(), {
        share: ["messages", "toolCalls", "turns"],
        childThread: "stable",
      });
      const tail = node(() => ({ toolCalls: [] }), { name: "tail" });
      return new Graph(State, { stateStore: s }).flow(START.to(sub), sub.to(tail), tail.to(END));
    };
    const reader = (s: StateStore) => new Graph(State, { stateStore: s });
    const live = new Live("t");
    for (let turn = 0; turn < 3; turn++) {
      const r = await live.run(make(await fx.reopen(store)), {
        messages: [HumanMessage({ content: `turn ${turn}` })],
      });
      expect(r.status).toBe("interrupted");
      await expectFolds(fx, store, reader, live);
      await live.run(make(await fx.reopen(store)), null, {
        resume: { [r.interrupts[0]!.key]: `answer ${turn}` },
      });
      await expectFolds(fx, store, reader, live);
    }
    const child = (await reader(await fx.reopen(store)).getState("t:sub")).state;
    const parent = JSON.parse(live.last!);
    expect(json(child.messages)).toBe(json(parent.messages));
    expect(child.turns).toBe(3);
  });

  it("a run cancelled by leaving its stream, a node that times out; then invoke(null)", async () => {
    const store = await fx.open();
    let slow = true;
    const make = (s: StateStore) => {
      const a = node((st: S) => ({ seen: [{ a: [st.i] }], a: [st.i], i: (st.i as number) + 1 }), {
        name: "a",
      });
      const b = node(
        async (st: S) => {
          if (slow) await new Promise((r) => setTimeout(r, 200));
          return { b: [st.i], i: st.i };
        },
        { name: "b", timeoutMs: 50 },
      );
      const c = node(() => ({ c: null, i: 0 }), { name: "c" });
      return plain(s).flow(START.to([a, c]), a.to(b), c.to(b), b.to(END));
    };
    const live = new Live("t");
    // Leave the stream after the first update: the run is cancelled where it stands.
    const values: string[] = [];
    for await (const e of make(store).stream(
      { i: 0 },
      { threadId: "t", modes: ["updates", "values"] },
    )) {
      if (e.mode === "values") values.push(json(e.data));
      if (e.mode === "updates") break;
    }
    live.values.push(...values);
    // The node that times out fails the run; the next continues it.
    const err = await live.fail(make(store), null);
    expect(err.name).toBe("NodeTimeoutError");
    slow = false;
    await live.run(make(store), null);
    await expectFolds(fx, store, plain, live);
  });

  it("a node whose results are cached: a cache hit is stored like a run", async () => {
    const store = await fx.open();
    let runs = 0;
    const make = (s: StateStore) => {
      const a = node(
        () => {
          runs++;
          return { list: [{ k: [runs] }], k: [runs], n: null };
        },
        { name: "a", cache: { key: () => "same" } },
      );
      return plain(s).flow(START.to(a), a.to(END));
    };
    const g = make(store);
    const live = new Live("t");
    await live.run(g, { n: null });
    await live.run(g, { n: 1 });
    expect(runs).toBe(1);
    await expectFolds(fx, store, plain, live);
  });

  it("a fork of a long thread is cold-loaded through its own snapshot", async () => {
    const store = await fx.open();
    const make = (s: StateStore) => {
      const step = node(
        (st: S) => ({
          i: (st.i as number) + 1,
          same: [{ i: [st.i] }],
          i2: st.i === 0 ? undefined : [st.i],
          flag: null,
        }),
        { name: "step" },
      );
      return new Graph(null, { stateStore: s, maxSteps: 500 }).flow(
        START.to(step),
        step.to(when((st: S) => (st.i as number) % 50 !== 0, step, { otherwise: END })),
      );
    };
    const live = new Live("t");
    await live.run(make(store), { i: 0, flag: null });
    await expectFolds(fx, store, plain, live);
    const events = await store.read("t", "main");
    const commits = events.filter((e) => e.type === "step_committed");
    await make(store).fork("t", { eventId: commits[45]!.id, branchId: "f" });
    const fork = live.forkAfter(46, "f");
    await fork.run(make(store), null);
    await fork.run(make(await fx.reopen(store)), { i: 0 });
    await expectFolds(fx, store, plain, fork);
    // Readers keep no snapshot; the next run's load folds the fork's log and keeps one.
    expect(await store.loadSnapshot("t", "f")).toBeNull();
    const folded = (await store.getBranch("t", "f"))!.lastSeq;
    await fork.run(make(await fx.reopen(store)), { i: 20 });
    expect((await store.loadSnapshot("t", "f"))?.seq).toBe(folded);
    await expectFolds(fx, store, plain, fork);
  });

  it("encodeUpdate / decodeUpdate keep an update's key order (JSON round trip)", () => {
    const cases: S[] = [
      { a: [{ b: [1] }], c: 1, b: [1] },
      { a: [{ b: [1], c: [2] }], b: [1], c: [2], d: [2] },
      { a: [{ b: [1] }], x: [{ c: [2] }], b: [1], c: [2] },
      { a: { b: [[]] }, b: [[]], c: [{ d: [0] }], d: [0] },
      { a: [{ b: [1] }, { b: [2] }], b: [1] },
    ];
    for (const update of cases) {
      const { update: stored, same } = encodeUpdate(null, update);
      const back = decodeUpdate(null, JSON.parse(json(stored)), JSON.parse(json(same)));
      expect(Object.keys(back)).toEqual(Object.keys(update));
      expect(json(back)).toBe(json(update));
    }
    // Neighbours still share: b after a, c after b (which repeats a).
    expect(encodeUpdate(null, cases[1]!).same).toEqual({ b: ["a", 0], c: ["a", 0] });
    // A no-op write left out does not stand between a list and its repeat.
    expect(encodeUpdate(null, { m: [{ t: [1] }], f: null, t: [1] }, { f: null })).toEqual({
      update: { m: [{ t: [1] }] },
      same: { t: ["m", 0] },
      extend: null,
    });
  });

  it("a snapshot kept by a reader with another definition is not used by the graph's readers", async () => {
    const store = await fx.open();
    const { AgentState } = await import("../../src/agents/index.js");
    const make = (s: StateStore) => {
      const a = node(
        (st: typeof AgentState.State) => ({
          messages: [AIMessage({ content: `m${st.messages.length}` })],
          finalText: null,
        }),
        { name: "a" },
      );
      return new Graph(AgentState, { stateStore: s, maxSteps: 200 }).flow(
        START.to(a),
        a.to(when((st: typeof AgentState.State) => st.messages.length < 70, a, { otherwise: END })),
      );
    };
    const live = new Live("t");
    await live.run(make(store), {});
    // A plain-object reader folds the compact messages as they are stored (and writes nothing);
    // a plain-object graph's run would keep a snapshot of that fold: its load does.
    const other = await fx.reopen(store);
    const raw = (await new Graph(null, { stateStore: other }).getState("t")).state;
    expect((raw.messages as object[])[0]).toEqual({
      type: "ai",
      id: expect.any(String),
      content: "m69",
    });
    expect(await other.loadSnapshot("t", "main")).toBeNull();
    await loadPosition(other, null, "t", "main", null);
    const plainKept = await other.loadSnapshot("t", "main");
    expect(plainKept?.seq).toBe((await other.getBranch("t", "main"))!.lastSeq);
    const plainDefinition = (plainKept!.data as { definition: string }).definition;
    await expectFolds(fx, store, (s) => new Graph(AgentState, { stateStore: s }), live);
    // So does a reader whose state has one more field (its run's load keeps its own snapshot).
    const Extended = AgentState.extend({ extra: z.number().default(1) });
    const extended = (
      await new Graph(Extended, { stateStore: await fx.reopen(store) }).getState("t")
    ).state;
    expect(json(extended)).toBe(json({ ...JSON.parse(live.last!), extra: 1 }));
    await loadPosition(await fx.reopen(store), Extended, "t", "main", null);
    const extendedKept = (await store.loadSnapshot("t", "main"))!.data as { definition: string };
    expect(extendedKept.definition).not.toBe(plainDefinition);
    await expectFolds(fx, store, (s) => new Graph(AgentState, { stateStore: s }), live);
    // The graph's own run keeps a snapshot of its own (its load folds the log), which the next
    // readers use; the run goes on from it.
    await live.run(make(await fx.reopen(store)), { messages: [HumanMessage({ content: "" })] });
    const own = (await store.loadSnapshot("t", "main"))!.data as { definition: string };
    expect([
      own.definition === plainDefinition,
      own.definition === extendedKept.definition,
    ]).toEqual([false, false]);
    await expectFolds(fx, store, (s) => new Graph(AgentState, { stateStore: s }), live);
  });

  it("a field whose default is made by a function (a time, an id) reads back as the thread started with it", async () => {
    const store = await fx.open();
    let made = 0;
    const State = defineState({
      createdAt: z.number().default(() => 1_000 + ++made),
      n: z.number().default(0),
    });
    const make = (s: StateStore) => {
      const a = node((st: typeof State.State) => ({ n: st.n + 1 }), { name: "a" });
      return new Graph(State, { stateStore: s }).flow(START.to(a), a.to(END));
    };
    const live = new Live("t");
    await live.run(make(store), {});
    await expectFolds(fx, store, (s) => new Graph(State, { stateStore: s }), live);
  });

  it("a node that changes a list of its state in place and returns the state", async () => {
    const store = await fx.open();
    const make = (s: StateStore) => {
      const a = node(
        (st: S) => {
          (st.items as number[]).push(3);
          return st;
        },
        { name: "a" },
      );
      return plain(s).flow(START.to(a), a.to(END));
    };
    const live = new Live("t");
    await live.run(make(store), { items: [1, 2] });
    expect(live.last).toBe(json({ items: [1, 2, 3] }));
    await expectFolds(fx, store, plain, live);
  });
});

/** A small deterministic random source. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
}

it("random plain updates fold like they apply, with and without the state before (5,000 cases)", () => {
  const r = random(7);
  const keys = ["a", "b", "c", "same", "1", "0", "x", "next"];
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const value = (depth: number): unknown => {
    const k = r();
    if (depth > 2 || k < 0.3) return pick([null, 0, 1, "", "s", true, false]);
    if (k < 0.65) return Array.from({ length: Math.floor(r() * 3) }, () => value(depth + 1));
    const o: S = {};
    for (let i = 0; i < 3; i++) if (r() < 0.6) o[pick(keys)] = value(depth + 1);
    return o;
  };
  let repeats = 0;
  let extended = 0;
  for (let n = 0; n < 5000; n++) {
    const before: S = {};
    for (const k of keys) if (r() < 0.4) before[k] = value(1);
    const update: S = {};
    for (let i = 0; i < 5; i++) {
      const k = pick(keys);
      // Often a list that an item of an earlier field holds under the same name.
      const sources = Object.values(update).filter((v) => typeof v === "object" && v !== null);
      const src = sources.length > 0 && r() < 0.5 ? pick(sources) : null;
      const item = Array.isArray(src) ? src[0] : src;
      if (typeof item === "object" && item !== null && !Array.isArray(item)) {
        (item as S)[k] = [value(2)];
        update[k] = structuredClone((item as S)[k]);
        continue;
      }
      const old = before[k];
      if (Array.isArray(old) && r() < 0.4) {
        // Often a list that keeps the items the field held (copies of them) and adds some.
        update[k] = [...structuredClone(old), ...(r() < 0.7 ? [value(1)] : [])];
        continue;
      }
      update[k] = r() < 0.3 && (old === null || typeof old !== "object") ? old : value(0);
    }
    const live = applyUpdate(null, before, update, "n");
    const {
      update: stored,
      same,
      extend,
    } = encodeUpdate(null, update, r() < 0.5 ? before : undefined);
    if (same) repeats++;
    if (extend) extended++;
    const back = decodeUpdate(
      null,
      JSON.parse(json(stored)),
      JSON.parse(json(same)),
      JSON.parse(json(extend)),
      JSON.parse(json(before)),
    );
    const folded = applyUpdate(null, JSON.parse(json(before)), back, "n");
    expect(json(folded), json({ before, update })).toBe(json(live));
  }
  expect(repeats).toBeGreaterThan(500);
  expect(extended).toBeGreaterThan(100);
});

it("random messages updates of an AgentState read back key for key (3,000 cases)", async () => {
  const { AgentState } = await import("../../src/agents/index.js");
  const r = random(3);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const maybe = (v: () => unknown) => (r() < 0.5 ? undefined : v());
  const text = () => pick([null, "", "x", "null", "[]"]);
  const obj = () => pick([{}, { a: 1 }, { b: {}, a: [] }, { "": null }]);
  const shuffled = (o: S): S => {
    const out: S = {};
    for (const k of Object.keys(o).sort(() => r() - 0.5)) if (o[k] !== undefined) out[k] = o[k];
    return out;
  };
  const call = () =>
    shuffled({
      id: pick(["c", ""]),
      name: "n",
      arguments: maybe(obj),
      argumentsError: maybe(text),
    });
  const message = (): S => {
    const type = pick(["system", "human", "ai", "tool", "remove"]);
    if (type === "remove") return { type, id: "r" };
    const m: S = { type, id: maybe(() => pick([null, "i"])), content: maybe(text) };
    if (type === "ai") {
      m.refusal = maybe(text);
      m.toolCalls = maybe(() => Array.from({ length: Math.floor(r() * 3) }, call));
      m.finishReason = maybe(text);
      m.usage = maybe(obj);
    }
    if (type === "tool") {
      m.name = maybe(text);
      m.toolCallId = maybe(text);
      m.arguments = maybe(() => pick([null, {}, { a: 1 }]));
    }
    return shuffled(m);
  };
  for (let n = 0; n < 3000; n++) {
    const ms = Array.from({ length: 1 + Math.floor(r() * 3) }, message);
    const raw: S = { messages: r() < 0.3 ? ms[0] : ms };
    if (r() < 0.5) raw.toolCalls = ms[ms.length - 1]!.toolCalls ?? [];
    if (r() < 0.5) raw.finalText = text();
    const update = prepareUpdate(AgentState, raw, "n");
    const { update: stored, same } = encodeUpdate(AgentState, update);
    const back = decodeUpdate(AgentState, JSON.parse(json(stored)), JSON.parse(json(same)));
    expect(json(back)).toBe(json(update));
  }
});

it("random plain graphs (fan-out, Sends, no-op writes, repeats) fold to their live states (150 threads)", async () => {
  const { MemoryStateStore } = await import("../../src/stores/index.js");
  const r = random(11);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const keys = ["a", "b", "c", "d", "same", "next"];
  const leaf = () => pick([null, 0, 1, "", "x", true]);
  for (let n = 0; n < 150; n++) {
    const store = new MemoryStateStore();
    const seed = Math.floor(r() * 1e9);
    const make = (s: StateStore) => {
      // Each node's update is a function of the state it gets (and the graph's seed).
      const writer = (name: string) =>
        node(
          (st: S) => {
            const w = random(seed + name.charCodeAt(0) + json(st).length);
            const update: S = {};
            for (let i = 0; i < 4; i++) {
              const k = keys[Math.floor(w() * keys.length)]!;
              const roll = w();
              if (roll < 0.35 && k in st && (st[k] === null || typeof st[k] !== "object")) {
                update[k] = st[k]; // a no-op write
              } else if (roll < 0.65) {
                const inner = keys[Math.floor(w() * keys.length)]!;
                const list = [[leaf()], leaf()];
                update[k] = [{ [inner]: list }];
                update[inner] = structuredClone(list); // a repeat, when it comes right after
              } else update[k] = w() < 0.5 ? leaf() : { v: [leaf()] };
            }
            return update;
          },
          { name },
        );
      const a = writer("a");
      const b = writer("b");
      const c = writer("c");
      const fan = node(
        (st: S) =>
          new Command({
            update: { fanned: (st.fanned as number | undefined) ?? 0 },
            goto: [new Send("b", { a: st.a ?? null }), "c", ...(r() < 0.5 ? ["b"] : [])],
          }),
        { name: "fan", goto: ["b", "c"] },
      );
      return plain(s).flow(START.to([a, fan]), b.to(END), c.to(END), a.to(c));
    };
    const live = new Live(`t${n}`);
    const g = make(store);
    for (let run = 0; run < 3; run++) {
      await live.run(g, run === 0 ? { a: 0 } : { [pick(keys)]: leaf() });
    }
    const reader = plain(store);
    const events = await reader.history(live.threadId);
    const atCommits: string[] = [];
    for (const e of events) {
      if (e.type !== "step_committed") continue;
      atCommits.push(json((await reader.getState(live.threadId, { eventId: e.id })).state));
    }
    expect(atCommits).toEqual(live.values);
    expect(json((await reader.getState(live.threadId)).state)).toBe(live.last);
  }
});
