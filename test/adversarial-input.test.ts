/**
 * Adversarial input against the rules of docs/graphs-and-state.md, docs/threads-and-interrupts.md,
 * docs/stores.md and docs/interrupts-and-approval.md:
 *
 * - bad input gets a typed error whose message says what was wrong and where (the field, the
 *   node, the thread);
 * - nothing is lost: a failed step leaves the thread's history as it was before that step,
 *   readable by another graph (a cold load from the log) and resumable with
 *   `invoke(null, { threadId })`.
 *
 * Cases that show a defect outside the files this suite may fix are `it.fails`, with a comment
 * saying what should happen instead.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  StateStoreError,
  StateUpdateError,
  ThreadBusyError,
  UnknownBranchError,
  UnknownEventError,
  ValueError,
} from "../src/errors/index.js";
import { END, Graph, type Node, node, START } from "../src/graph/index.js";
import { SqliteStateStore } from "../src/integrations/sqlite/index.js";
import type { JsonValue } from "../src/json/index.js";
import {
  defineState,
  type FieldCodec,
  Replace,
  reducer,
  type StateDefinition,
} from "../src/state/index.js";
import { MemoryStateStore } from "../src/stores/index.js";
import type { StateStore } from "../src/stores/types.js";
import { expectError } from "./helpers.js";

type Kind = "memory" | "sqlite";
type S = Record<string, unknown>;

let tmp: string | null = null;
/** This file's temp directory, made on first use and removed after the file. */
function tempDir(): string {
  tmp ??= mkdtempSync(join(tmpdir(), "nodestep-adversarial-"));
  return tmp;
}
let files = 0;
const opened: StateStore[] = [];

afterEach(async () => {
  for (const s of opened.splice(0).reverse()) await s.close().catch(() => {});
});
afterAll(() => {
  if (tmp !== null) rmSync(tmp, { recursive: true, force: true });
});

function track<T extends StateStore>(store: T): T {
  opened.push(store);
  return store;
}

/** A new, empty store of `kind` (closed after the test). */
function open(kind: Kind): StateStore {
  return track(
    kind === "memory"
      ? new MemoryStateStore()
      : new SqliteStateStore({ path: join(tempDir(), `s${++files}.db`) }),
  );
}

/** A second handle on the same data, as another process would open it. */
function reopen(store: StateStore): StateStore {
  return store instanceof SqliteStateStore
    ? track(new SqliteStateStore({ path: store.path }))
    : store;
}

/** A one-path graph `START → nodes[0] → … → END` named "g". */
function chain(def: StateDefinition, store: StateStore, ...nodes: Node[]) {
  const edges = [START.to(nodes[0]!)];
  for (let i = 0; i < nodes.length; i++) edges.push(nodes[i]!.to(nodes[i + 1] ?? END));
  return new Graph(def, { name: "g", stateStore: store }).flow(...edges);
}

async function types(graph: Graph<StateDefinition>, threadId: string): Promise<string[]> {
  return (await graph.history(threadId)).map((e) => e.type);
}

// ---------------------------------------------------------------------------------------------
// Codecs
// ---------------------------------------------------------------------------------------------

type CodecMode =
  | "encode-throws"
  | "encode-undefined"
  | "encode-date"
  | "encode-function"
  | "encode-nan"
  | "encode-drops-key"
  | "encode-replace-marker"
  | "decode-throws"
  | "decode-other";

/**
 * A codec that stores a list reversed, broken the way `mode` says while it is set; `encodes`
 * counts its encode calls.
 */
function switchableCodec() {
  const c = { mode: null as CodecMode | null, encodes: 0, codec: null as unknown as FieldCodec };
  c.codec = {
    encode: (u) => {
      c.encodes++;
      const reversed = [...(u as string[])].reverse();
      switch (c.mode) {
        case "encode-throws":
          throw new Error("encode boom");
        case "encode-undefined":
          return undefined as unknown as JsonValue;
        case "encode-date":
          return { at: new Date(0) } as unknown as JsonValue;
        case "encode-function":
          return (() => reversed) as unknown as JsonValue;
        case "encode-nan":
          return Number.NaN;
        case "encode-drops-key":
          // JSON drops an undefined key: the update would be stored as {}.
          return { list: undefined } as unknown as JsonValue;
        case "encode-replace-marker":
          return { $nodestep: "replace", value: reversed };
        default:
          return reversed;
      }
    },
    decode: (s) => {
      if (c.mode === "decode-throws") throw new Error("decode boom");
      if (c.mode === "decode-other") return ["other"];
      return Array.isArray(s) ? [...s].reverse() : [];
    },
  };
  return c;
}

function codecState(codec: FieldCodec) {
  return defineState({
    items: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b], {
      codec,
    }),
    n: z.number().default(0),
  });
}

const NOT_READ_BACK = (field: string) =>
  `codec.decode of state field "${field}" does not give back the update codec.encode stored; decode(encode(update)) must equal the update, key order included`;

/** Each broken codec, what it is refused with (after "Cannot store …: ") and the error's field. */
const BROKEN_CODECS: [CodecMode, string, string][] = [
  ["encode-throws", 'codec.encode of state field "items" threw: encode boom', "items"],
  [
    "encode-undefined",
    'codec.encode of state field "items" returned a value that is not JSON (items: undefined is not JSON (use null))',
    "items",
  ],
  [
    "encode-date",
    'codec.encode of state field "items" returned a value that is not JSON (items.at: a Date instance is not plain JSON data)',
    "items.at",
  ],
  [
    "encode-function",
    'codec.encode of state field "items" returned a value that is not JSON (items: a function is not JSON)',
    "items",
  ],
  [
    "encode-nan",
    'codec.encode of state field "items" returned a value that is not JSON (items: NaN is not a finite number)',
    "items",
  ],
  ["encode-drops-key", NOT_READ_BACK("items"), "items"],
  ["encode-replace-marker", NOT_READ_BACK("items"), "items"],
  [
    "decode-throws",
    'codec.decode of state field "items" threw on what codec.encode stored: decode boom',
    "items",
  ],
  ["decode-other", NOT_READ_BACK("items"), "items"],
];

describe.each<Kind>(["memory", "sqlite"])("a field's codec that fails [%s]", (kind) => {
  it.each(BROKEN_CODECS)(
    "%s: a node's update is refused naming the field and the node; the thread stays as before the step and resumes",
    async (mode, problem, field) => {
      const c = switchableCodec();
      const State = codecState(c.codec);
      const store = open(kind);
      let runs = 0;
      const step = node(
        () => {
          runs++;
          return { items: ["a", "b"] };
        },
        { name: "step" },
      );
      const graph = () => chain(State, reopen(store), step);
      c.mode = mode;
      const e = await expectError(
        () => graph().invoke({ n: 1 }, { threadId: "t" }),
        StateStoreError,
        `Cannot store the update of node "step": ${problem}`,
      );
      expect(e.field).toBe(field);
      // Nothing of the step was written; the failure was.
      expect(await types(graph(), "t")).toEqual(["run_started", "run_failed"]);
      c.mode = null;
      const before = await graph().getState("t");
      expect(before).toMatchObject({
        state: { items: [], n: 1 },
        next: ["step"],
        status: "failed",
      });
      // Resumed once the codec works: the step runs again and is stored as it is.
      const done = await graph().invoke(null, { threadId: "t" });
      expect(done.state).toEqual({ items: ["a", "b"], n: 1 });
      expect(runs).toBe(2);
      expect((await graph().getState("t")).state).toEqual({ items: ["a", "b"], n: 1 });
    },
  );

  it.each(BROKEN_CODECS)(
    "%s: the run input is refused naming the field; nothing is written",
    async (mode, problem, field) => {
      const c = switchableCodec();
      const State = codecState(c.codec);
      const store = open(kind);
      const step = node(() => ({ n: 2 }), { name: "step" });
      const graph = () => chain(State, reopen(store), step);
      // A thread whose log holds no update of the field (a decode that throws could not read it).
      await graph().invoke({ n: 1 }, { threadId: "old" });
      const oldHistory = await graph().history("old");
      c.mode = mode;
      for (const threadId of ["new", "old"]) {
        const e = await expectError(
          () => graph().invoke({ items: ["y", "z"] }, { threadId }),
          StateStoreError,
          `Cannot store the update of the run input: ${problem}`,
        );
        expect(e.field).toBe(field);
      }
      c.mode = null;
      expect(await graph().history("new")).toEqual([]);
      expect(await graph().history("old")).toEqual(oldHistory);
      expect((await graph().invoke({ items: ["y"] }, { threadId: "new" })).state).toEqual({
        items: ["y"],
        n: 2,
      });
      expect((await graph().getState("old")).state).toEqual({ items: [], n: 2 });
    },
  );

  it("in a fan-out, the other task's finished write is kept and does not run again on resume", async () => {
    const c = switchableCodec();
    const State = codecState(c.codec);
    const store = open(kind);
    const runs = { left: 0, right: 0 };
    const left = node(
      async () => {
        runs.left++;
        await new Promise((r) => setTimeout(r, 10));
        return { items: ["l"] };
      },
      { name: "left" },
    );
    const right = node(
      () => {
        runs.right++;
        return { n: 5 };
      },
      { name: "right" },
    );
    const graph = () =>
      new Graph(State, { name: "g", stateStore: reopen(store) }).flow(
        START.to([left, right]),
        left.to(END),
        right.to(END),
      );
    c.mode = "encode-throws";
    await expectError(
      () => graph().invoke({}, { threadId: "t" }),
      StateStoreError,
      'Cannot store the update of node "left": codec.encode of state field "items" threw: encode boom',
    );
    expect(await types(graph(), "t")).toEqual(["run_started", "task_finished", "run_failed"]);
    c.mode = null;
    expect(await graph().getState("t")).toMatchObject({
      state: { items: [], n: 0 },
      next: ["left", "right"],
      status: "failed",
    });
    expect((await graph().invoke(null, { threadId: "t" })).state).toEqual({ items: ["l"], n: 5 });
    expect(runs).toEqual({ left: 2, right: 1 });
  });

  it("a Replace of a field with a codec is stored as it is, past the codec, and reads back", async () => {
    const c = switchableCodec();
    const State = codecState(c.codec);
    const store = open(kind);
    const add = node(() => ({ items: ["a", "b"] }), { name: "add" });
    const reset = node(() => ({ items: Replace(["r"]) }), { name: "reset" });
    const graph = () => chain(State, reopen(store), add, reset);
    const live = await graph().invoke({}, { threadId: "t" });
    expect(live.state).toEqual({ items: ["r"], n: 0 });
    expect(c.encodes).toBe(1); // add's update only
    const committed = (await graph().history("t")).filter((e) => e.type === "step_committed");
    expect(committed.map((e) => (e.data as { update: unknown }).update)).toEqual([
      { items: ["b", "a"] },
      { items: { $nodestep: "replace", value: ["r"] } },
    ]);
    expect((await graph().getState("t")).state).toEqual({ items: ["r"], n: 0 });
  });

  it("a log the codec can no longer read names the field and the event; the history stays readable", async () => {
    const c = switchableCodec();
    const State = codecState(c.codec);
    const store = open(kind);
    const step = node(() => ({ items: ["a"] }), { name: "step" });
    const graph = () => chain(State, reopen(store), step);
    await graph().invoke({ n: 1 }, { threadId: "t" });
    c.mode = "decode-throws"; // as a changed codec would
    const e = await expectError(
      () => graph().getState("t"),
      StateStoreError,
      'Thread "t" cannot be rebuilt at event t/main/2 (step_committed): codec.decode of state field "items" failed: decode boom. The log is damaged or was written by an incompatible version.',
    );
    expect([e.threadId, e.branchId]).toEqual(["t", "main"]);
    expect(await types(graph(), "t")).toEqual(["run_started", "step_committed", "run_finished"]);
    c.mode = null;
    expect((await graph().getState("t")).state).toEqual({ items: ["a"], n: 1 });
  });
});

describe("reducer(schema, fn, options) checks its options", () => {
  const schema = z.array(z.string()).default([]);
  const concat = (a: string[], b: string[]) => [...a, ...b];
  it("a codec that is not { encode, decode } of two functions is refused when declared", async () => {
    await expectError(
      () => reducer(schema, concat, { codec: { encode: (u: JsonValue) => u } as FieldCodec }),
      TypeError,
      "reducer(schema, fn, options): codec must be an object { encode, decode } of two functions, got an object with encode: function, decode: undefined",
    );
    await expectError(
      () => reducer(schema, concat, { codec: null as unknown as FieldCodec }),
      TypeError,
      "reducer(schema, fn, options): codec must be an object { encode, decode } of two functions, got null",
    );
    await expectError(
      () => reducer(schema, concat, { codec: ((u: JsonValue) => u) as unknown as FieldCodec }),
      TypeError,
      "reducer(schema, fn, options): codec must be an object { encode, decode } of two functions, got a function ((u) => u)",
    );
  });

  it("a misspelled option, a prepare that is not a function, an update that is not a schema", async () => {
    await expectError(
      () => reducer(schema, concat, { codecs: {} } as never),
      TypeError,
      'reducer(schema, fn, options): unknown option "codecs"; the options are update, prepare, codec',
    );
    await expectError(
      () => reducer(schema, concat, { prepare: "trim" } as never),
      TypeError,
      "reducer(schema, fn, options): prepare must be a function, got a string (trim)",
    );
    await expectError(
      () => reducer(schema, concat, { update: { parse: () => [] } } as never),
      TypeError,
      "reducer(schema, fn, options): update must be a zod schema, got an object",
    );
    await expectError(
      () => reducer(schema, concat, 5 as never),
      TypeError,
      "reducer(schema, fn, options): options must be an object, got a number (5)",
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Defaults and the `init` of a thread's first run
// ---------------------------------------------------------------------------------------------

describe.each<Kind>(["memory", "sqlite"])("a field's default [%s]", (kind) => {
  const step = node(() => ({ n: 1 }), { name: "step" });

  it.each([
    [
      "a Date",
      { when: z.date().default(() => new Date(0)) },
      "when",
      "when is not JSON (a Date instance is not plain JSON data)",
    ],
    [
      "a function value",
      { fn: z.unknown().default(() => () => 1) },
      "fn",
      "fn is not JSON (a function is not JSON)",
    ],
    [
      "NaN inside",
      { cfg: z.object({ at: z.number() }).default({ at: Number.NaN }) },
      "cfg.at",
      "cfg.at is not JSON (NaN is not a finite number)",
    ],
  ])(
    "that is not JSON (%s) is refused naming the field, with or without a thread; nothing is written",
    async (_what, shape, path, problem) => {
      const State = defineState({ ...shape, n: z.number().default(0) });
      const field = path.split(".")[0]!;
      const message = `Cannot store the default of state field "${field}": ${problem}`;
      const store = open(kind);
      const graph = () => chain(State, store, step);
      const e = await expectError(() => graph().invoke({}), StateStoreError, message);
      expect(e.field).toBe(path);
      await expectError(() => graph().invoke({}, { threadId: "t" }), StateStoreError, message);
      await expectError(() => graph().getState("t"), StateStoreError, message);
      expect(await graph().history("t")).toEqual([]);
      // Its lease was given back: nothing holds the thread.
      expect(await store.acquireLease("t", "main", "someone", 1_000)).toBe(true);
    },
  );

  it("that throws is refused naming the field", async () => {
    const State = defineState({
      x: z.string().default(() => {
        throw new Error("no default today");
      }),
      n: z.number().default(0),
    });
    const store = open(kind);
    const graph = chain(State, store, step);
    const message = 'The default of state field "x" threw: no default today';
    const e = await expectError(() => graph.invoke({}), StateUpdateError, message);
    expect(e.field).toBe("x");
    expect((e.cause as Error).message).toBe("no default today");
    await expectError(() => graph.invoke({}, { threadId: "t" }), StateUpdateError, message);
    await expectError(() => graph.getState("t"), StateUpdateError, message);
    expect(await graph.history("t")).toEqual([]);
  });

  it("that is large and made by a function is recorded once, in the first run, and reads back as it was", async () => {
    let made = 0;
    const State = defineState({
      big: z.array(z.number()).default(() => {
        made++;
        return Array.from({ length: 20_000 }, (_, i) => i * made);
      }),
      n: reducer(z.number().default(0), (a: number, b: number) => a + b),
    });
    const store = open(kind);
    const graph = () => chain(State, reopen(store), step);
    const first = await graph().invoke({}, { threadId: "t" });
    await graph().invoke({}, { threadId: "t" });
    const cold = await graph().getState("t");
    expect(cold.state.n).toBe(2);
    expect(cold.state.big).toEqual(first.state.big);
    const inits = (await graph().history("t")).filter(
      (e) => e.type === "run_started" && (e.data as { init?: unknown }).init !== undefined,
    );
    expect(inits.map((e) => e.seq)).toEqual([1]);
  });
});

// ---------------------------------------------------------------------------------------------
// A node's copy of the state
// ---------------------------------------------------------------------------------------------

const CopyState = defineState({
  note: z.string().default("n0"),
  obj: z.record(z.string(), z.unknown()).default({}),
  count: reducer(z.number().default(0), (a: number, b: number) => a + b),
  log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
});
const INPUT = { note: "n1", count: 2, log: ["a"] };
const AFTER_INPUT = { note: "n1", obj: {}, count: 2, log: ["a"] };

/**
 * Run `bad` as the node "step" on a new thread: it must fail with `type` and `message`, leave the
 * thread as it was before the step (read by another graph), and let the thread resume once the
 * node behaves (it then writes `{ note: "fixed" }`).
 */
async function failsCleanly<T extends Error>(
  bad: (s: S) => unknown,
  type: abstract new (...args: never[]) => T,
  message: string,
): Promise<T> {
  const store = open("sqlite");
  let broken = true;
  const step = node((s: S) => (broken ? (bad(s) as S) : { note: "fixed" }), { name: "step" });
  const graph = () => chain(CopyState, reopen(store), step);
  const e = await expectError(() => graph().invoke(INPUT, { threadId: "t" }), type, message);
  expect(await graph().getState("t")).toMatchObject({
    state: AFTER_INPUT,
    next: ["step"],
    status: "failed",
  });
  broken = false;
  expect((await graph().invoke(null, { threadId: "t" })).state).toEqual({
    ...AFTER_INPUT,
    note: "fixed",
  });
  return e;
}

describe("a node that returns its state changed in place, or another object", () => {
  it("setting a field to undefined is refused like any value that is not JSON, not taken for its default", async () => {
    const message =
      'Cannot store the update of node "step": note is not JSON (undefined is not JSON (use null))';
    const e = await failsCleanly(
      (s) => {
        s.note = undefined;
        return s;
      },
      StateStoreError,
      message,
    );
    expect(e.field).toBe("note");
    // The same for an explicit Replace(undefined).
    await failsCleanly(() => ({ note: Replace(undefined) }), StateStoreError, message);
  });

  // Defect (src/graph/interpret.ts, interpret): the engine diffs the keys the returned state
  // still has, so a deleted field is silently ignored (the state keeps it). It should be
  // refused, as setting it to undefined is.
  it("deleting a field is refused naming the node and the field", async () => {
    await failsCleanly(
      (s) => {
        delete s.note;
        return s;
      },
      StateUpdateError,
      'Node "step" returned its state without field "note"; a node cannot remove a state field (set it to null, or to its default)',
    );
  });

  it("adding an unknown field is refused naming it", async () => {
    const e = await failsCleanly(
      (s) => {
        s.bogus = 1;
        return s;
      },
      StateUpdateError,
      'Node "step" wrote unknown state field "bogus"; declared fields: note, obj, count, log',
    );
    expect([e.node, e.field]).toEqual(["step", "bogus"]);
  });

  it("a class instance in a field, or as a field, is refused with its path", async () => {
    const e = await failsCleanly(
      (s) => {
        (s.obj as S).when = new Date(0);
        return s;
      },
      StateStoreError,
      'Cannot store the update of node "step": obj.when is not JSON (a Date instance is not plain JSON data)',
    );
    expect(e.field).toBe("obj.when");
    await failsCleanly(
      (s) => {
        s.obj = new Map();
        return s;
      },
      StateUpdateError,
      'Invalid value for state field "obj" written by node "step": Invalid input: expected record, received Map',
    );
  });

  it("a cycle is refused with its path", async () => {
    await failsCleanly(
      (s) => {
        (s.obj as S).self = s.obj;
        return s;
      },
      StateStoreError,
      'Cannot store the update of node "step": obj.self.self is not JSON (the value contains a cycle)',
    );
    await failsCleanly(
      (s) => {
        (s.obj as S).state = s;
        return s;
      },
      StateStoreError,
      'Cannot store the update of node "step": obj.state.obj.state is not JSON (the value contains a cycle)',
    );
  });

  it("an object made from the state with Object.create is refused as not plain", async () => {
    await failsCleanly(
      (s) => Object.create(s),
      StateUpdateError,
      'Node "step" returned an object that is not plain (its prototype is another object); a node returns an update object, its state changed in place, a Command, a Send or an array of Sends, END, or nothing',
    );
  });

  it("a copy of the state ({ ...s }) is an update object: every field goes through its reducer, as documented", async () => {
    const store = open("memory");
    const step = node((s: S) => ({ ...s }), { name: "step" });
    const r = await chain(CopyState, store, step).invoke(INPUT, { threadId: "t" });
    expect(r.state).toEqual({ note: "n1", obj: {}, count: 4, log: ["a", "a"] });
  });

  it("returning the state of another task is an update object, as { ...s } is (documented)", async () => {
    const store = open("memory");
    let stash: S | null = null;
    const a = node(
      (s: S) => {
        stash = s;
        s.note = "from a";
        return s;
      },
      { name: "a" },
    );
    const b = node(
      async () => {
        await new Promise((r) => setTimeout(r, 5));
        return stash;
      },
      { name: "b" },
    );
    const graph = new Graph(CopyState, { name: "g", stateStore: store }).flow(
      START.to([a, b]),
      a.to(END),
      b.to(END),
    );
    const { state } = await graph.invoke({ count: 1, log: ["x"] }, { threadId: "t" });
    // a wrote note in place; b's object went through the reducers: count 1 + 1, log x + x.
    expect(state).toMatchObject({ note: "from a", count: 2, log: ["x", "x"] });
  });
});

// ---------------------------------------------------------------------------------------------
// Bad thread and run inputs
// ---------------------------------------------------------------------------------------------

const AskState = defineState({
  count: reducer(z.number().default(0), (a: number, b: number) => a + b),
  answers: z.array(z.unknown()).default([]),
});

/** A node that asks twice (keys "k1" then "k2") and records both answers. */
const ask = node(
  (_s: S, ctx) => {
    const a = ctx.interrupt({ q: 1 }, { key: "k1" });
    const b = ctx.interrupt({ q: 2 }, { key: "k2" });
    return { answers: [a, b], count: 1 };
  },
  { name: "ask" },
);

const Trail = defineState({
  count: reducer(z.number().default(0), (a: number, b: number) => a + b),
  trail: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
});

describe.each<Kind>(["memory", "sqlite"])("bad thread and run inputs [%s]", (kind) => {
  it("a threadId that is not a non-empty string is refused before anything runs", async () => {
    const store = open(kind);
    const graph = chain(AskState, store, ask);
    await expectError(
      () => graph.invoke({}, { threadId: 5 as never }),
      TypeError,
      'Graph "g": threadId must be a non-empty string, got number',
    );
    await expectError(
      () => graph.invoke({}, { threadId: "" }),
      TypeError,
      'Graph "g": threadId must be a non-empty string, got ""',
    );
    await expectError(
      () => graph.invoke({}, { threadId: "a\u0000b" }),
      StateStoreError,
      'A thread id must be well-formed text without NUL characters or lone surrogates, got "a\\u0000b"',
    );
    // getState, history and fork check it as invoke does.
    await expectError(
      () => graph.getState(5 as never),
      TypeError,
      'Graph "g": threadId must be a non-empty string, got number',
    );
    await expectError(
      () => graph.history(undefined as never),
      TypeError,
      'Graph "g": threadId must be a non-empty string, got undefined',
    );
    expect(await store.listThreads()).toEqual([]);
  });

  it("a 100,000-character threadId works: pause, cold read, resume", async () => {
    const store = open(kind);
    const threadId = `t-${"x".repeat(100_000)}`;
    const graph = () => chain(AskState, reopen(store), ask);
    expect((await graph().invoke({}, { threadId })).status).toBe("interrupted");
    await graph().invoke(null, { threadId, resume: { k1: "a" } });
    const cold = await graph().getState(threadId);
    expect(cold.interrupts.map((i) => i.key)).toEqual(["k2"]);
    const done = await graph().invoke(null, { threadId, resume: { k2: "b" } });
    expect(done.state).toEqual({ count: 1, answers: ["a", "b"] });
    expect((await graph().history(threadId))[0]!.id).toBe(`${threadId}/main/1`);
  });

  it('a branchId with "/" is refused; the thread is untouched', async () => {
    const store = open(kind);
    const graph = chain(AskState, store, ask);
    await graph.invoke({}, { threadId: "t" });
    const history = await graph.history("t");
    await expectError(
      () => graph.invoke({}, { threadId: "t", branchId: "a/b" }),
      StateStoreError,
      'A branch id must be a non-empty string without "/", NUL characters or lone surrogates, got "a/b"',
    );
    await expectError(
      () => graph.getState("t", { branchId: "a/b" }),
      UnknownBranchError,
      'Thread "t" has no branch "a/b"',
    );
    await expectError(
      () => graph.fork("t", { eventId: "t/main/1", branchId: "x/y" }),
      StateStoreError,
      'A branch id must be a non-empty string without "/", NUL characters or lone surrogates, got "x/y"',
    );
    expect(await graph.history("t")).toEqual(history);
  });

  // Defect (src/graph/thread-ops.ts, getState/history/fork): their options are not checked as
  // invoke's are, so a branchId of the wrong type reads as the name of a missing branch
  // ('Thread "t" has no branch "5"'), which hides what was wrong.
  it("getState with a branchId that is not a string is refused as invoke refuses it", async () => {
    const store = open(kind);
    const graph = chain(AskState, store, ask);
    await graph.invoke({}, { threadId: "t" });
    await expectError(
      () => graph.getState("t", { branchId: 5 as never }),
      TypeError,
      'Graph "g": branchId must be a non-empty string, got number',
    );
  });

  it("unknown threads, branches and events", async () => {
    const store = open(kind);
    const graph = chain(AskState, store, ask);
    await graph.invoke({}, { threadId: "t" });
    expect(await graph.history("nobody")).toEqual([]);
    await expectError(
      () => graph.invoke(null, { threadId: "nobody" }),
      UnknownBranchError,
      'Thread "nobody" (branch "main") has no history to continue; start it with an input',
    );
    await expectError(
      () => graph.invoke(null, { threadId: "t", branchId: "nope" }),
      UnknownBranchError,
      'Thread "t" has no branch "nope". Branches other than "main" are made with createBranch.',
    );
    await expectError(
      () => graph.getState("t", { eventId: "other/main/1" }),
      UnknownEventError,
      'Event "other/main/1" is not in the history of thread "t" (branch "main")',
    );
    await expectError(
      () => graph.getState("t", { branchId: "nope", eventId: "t/main/1" }),
      UnknownBranchError,
      'Thread "t" has no branch "nope". Branches other than "main" are made with createBranch.',
    );
    await expectError(
      () => graph.fork("nobody", { eventId: "nobody/main/1" }),
      UnknownEventError,
      'Thread "nobody" has no event "nobody/main/1". Event ids are "<threadId>/<branchId>/<seq>" as listed by `nodestep history <thread>` or by getState and history.',
    );
    await expectError(
      () => graph.fork("t", { eventId: "t/main/1/extra" }),
      UnknownEventError,
      'Thread "t" has no event "t/main/1/extra". Event ids are "<threadId>/<branchId>/<seq>" as listed by `nodestep history <thread>` or by getState and history.',
    );
    await expectError(
      () => graph.fork("t", undefined as never),
      TypeError,
      'Graph "g": fork(threadId, { eventId }) needs the id of an event of the thread (see graph.history)',
    );
  });

  it("bad resume answers are refused before anything is written; the thread still waits on them", async () => {
    const store = open(kind);
    const graph = () => chain(AskState, reopen(store), ask);
    await graph().invoke({}, { threadId: "r" });
    const history = await graph().history("r");
    await expectError(
      () => graph().invoke(null, { threadId: "r", resume: { nope: 1 } }),
      ValueError,
      'Thread "r" has no pending interrupt with key "nope"; pending: k1',
    );
    await expectError(
      () => graph().invoke(null, { threadId: "r", resume: { k1: new Date(0) as never } }),
      StateStoreError,
      "Cannot store the resume answers: resume.k1 is not JSON (a Date instance is not plain JSON data)",
    );
    await expectError(
      () => graph().invoke(null, { threadId: "r", resume: { k1: (() => 1) as never } }),
      StateStoreError,
      "Cannot store the resume answers: resume.k1 is not JSON (a function is not JSON)",
    );
    await expectError(
      () => graph().invoke(null, { threadId: "r", resume: [1] as never }),
      TypeError,
      'Graph "g": resume must be an object of answers by interrupt key',
    );
    await expectError(
      () => graph().invoke({}, { threadId: "r", resume: { k1: 1 } }),
      ValueError,
      'Graph "g": resume answers go with invoke(null, { threadId, resume }), not with new input',
    );
    expect(await graph().history("r")).toEqual(history);
    expect((await graph().getState("r")).interrupts.map((i) => i.key)).toEqual(["k1"]);
    const next = await graph().invoke(null, { threadId: "r", resume: { k1: "yes" } });
    expect(next.interrupts.map((i) => i.key)).toEqual(["k2"]);
    const done = await graph().invoke(null, { threadId: "r", resume: { k2: "no" } });
    expect(done.state).toEqual({ count: 1, answers: ["yes", "no"] });
  });

  it("a resume answer that is undefined is refused: JSON would drop it and a later load would ask again", async () => {
    const store = open(kind);
    const warm = chain(AskState, store, ask);
    const cold = () => chain(AskState, reopen(store), ask);
    await warm.invoke({}, { threadId: "r" });
    const history = await warm.history("r");
    const e = await expectError(
      () => warm.invoke(null, { threadId: "r", resume: { k1: undefined as never } }),
      StateStoreError,
      "Cannot store the resume answers: resume.k1 is not JSON (undefined is not JSON (use null))",
    );
    expect(e.field).toBe("resume.k1");
    expect(await warm.history("r")).toEqual(history);
    // The same graph and another one agree: k1 is still asked.
    expect((await warm.getState("r")).interrupts.map((i) => i.key)).toEqual(["k1"]);
    expect((await cold().getState("r")).interrupts.map((i) => i.key)).toEqual(["k1"]);
    await warm.invoke(null, { threadId: "r", resume: { k1: null } });
    const done = await cold().invoke(null, { threadId: "r", resume: { k2: 2 } });
    expect(done.state).toEqual({ count: 1, answers: [null, 2] });
  });

  it("two concurrent invokes on one thread: one runs, the other fails at once with ThreadBusyError", async () => {
    const store = open(kind);
    const slow = (name: string) =>
      node(
        async () => {
          await new Promise((r) => setTimeout(r, 15));
          return { trail: [name] };
        },
        { name },
      );
    const a = slow("a");
    const b = slow("b");
    const graph = () => chain(Trail, reopen(store), a, b);
    const results = await Promise.allSettled([
      graph().invoke({ count: 1 }, { threadId: "t" }),
      graph().invoke({ count: 10 }, { threadId: "t" }),
    ]);
    expect(results[0]).toMatchObject({
      status: "fulfilled",
      value: { state: { count: 1, trail: ["a", "b"] } },
    });
    expect(results[1]!.status).toBe("rejected");
    const busy = (results[1] as PromiseRejectedResult).reason as Error;
    expect(busy).toBeInstanceOf(ThreadBusyError);
    expect(busy.message).toBe(
      'Thread "t" (branch "main") is already running; graph "g" cannot start a second run on it until the first ends (or its lease of 30000 ms expires); pass onBusy: "enqueue" to wait for it, "interrupt" to stop it or "rollback" to undo it (docs/busy-threads.md)',
    );
    expect(await graph().getState("t")).toMatchObject({
      state: { count: 1, trail: ["a", "b"] },
      status: "completed",
    });
    expect((await graph().invoke({ count: 10 }, { threadId: "t" })).state.count).toBe(11);
  });

  it("a stream left after its first event, then invoke(null): no step is lost or run twice", async () => {
    const store = open(kind);
    const runs: string[] = [];
    const step = (name: string) =>
      node(
        async () => {
          runs.push(name);
          await new Promise((r) => setTimeout(r, 5));
          return { trail: [name] };
        },
        { name },
      );
    const nodes = [step("a"), step("b"), step("c")];
    const graph = () => chain(Trail, reopen(store), ...nodes);
    for await (const _e of graph().stream({}, { threadId: "s" })) break;
    const left = await graph().getState("s");
    expect(left).toMatchObject({ state: { trail: ["a"] }, next: ["b"], status: "failed" });
    expect((await graph().history("s")).at(-1)!.data).toEqual({
      error: {
        name: "RunCancelledError",
        message: 'The stream of graph "g" was closed before the run ended',
      },
    });
    const done = await graph().invoke(null, { threadId: "s" });
    expect(done.state).toEqual({ count: 0, trail: ["a", "b", "c"] });
    expect(runs).toEqual(["a", "b", "c"]);
  });
});

// ---------------------------------------------------------------------------------------------
// Store misuse
// ---------------------------------------------------------------------------------------------

describe("store misuse", () => {
  const Count = defineState({
    count: reducer(z.number().default(0), (a: number, b: number) => a + b),
  });
  const one = (name: string) => node(() => ({ count: 1 }), { name });

  it.each<[Kind, string]>([
    ["memory", "MemoryStateStore"],
    ["sqlite", "SqliteStateStore"],
  ])("a closed %s store refuses every call with StateStoreError", async (kind, name) => {
    const store = open(kind);
    const graph = chain(Count, store, one("step"));
    await graph.invoke({}, { threadId: "t" });
    await store.close();
    const message = `The ${name} is closed; open a new one.`;
    await expectError(() => graph.invoke({}, { threadId: "t" }), StateStoreError, message);
    await expectError(() => graph.invoke(null, { threadId: "t" }), StateStoreError, message);
    await expectError(() => graph.getState("t"), StateStoreError, message);
    await expectError(() => graph.history("t"), StateStoreError, message);
    await expectError(() => graph.fork("t", { eventId: "t/main/1" }), StateStoreError, message);
  });

  it("a SQLite store closed in the middle of a run: the file keeps every committed step, and the thread resumes once the lease expires", async () => {
    const store = open("sqlite") as SqliteStateStore;
    let close = true;
    const b = node(
      async () => {
        if (close) await store.close();
        return { count: 10 };
      },
      { name: "b" },
    );
    const a = one("a");
    const graph = (s: StateStore) =>
      new Graph(Count, { name: "g", stateStore: s, leaseTtlMs: 150 }).flow(
        START.to(a),
        a.to(b),
        b.to(END),
      );
    await expectError(
      () => graph(store).invoke({}, { threadId: "t" }),
      StateStoreError,
      "The SqliteStateStore is closed; open a new one.",
    );
    close = false;
    const again = reopen(store);
    expect(await graph(again).getState("t")).toMatchObject({
      state: { count: 1 },
      next: ["b"],
      status: "running",
    });
    await expectError(
      () => graph(again).invoke(null, { threadId: "t" }),
      ThreadBusyError,
      'Thread "t" (branch "main") is already running; graph "g" cannot start a second run on it until the first ends (or its lease of 150 ms expires); pass onBusy: "enqueue" to wait for it, "interrupt" to stop it or "rollback" to undo it (docs/busy-threads.md)',
    );
    await new Promise((r) => setTimeout(r, 200));
    expect((await graph(again).invoke(null, { threadId: "t" })).state).toEqual({ count: 11 });
  });

  it("a SQLite path whose directory does not exist, a directory, a file that is not a database", async () => {
    // A missing directory is made (as the CLI's sqlite:FILE does); one under a file cannot be.
    const missing = join(tempDir(), "no-such-dir", "x.db");
    const made = new SqliteStateStore({ path: missing });
    made.close();
    expect(existsSync(missing)).toBe(true);
    const blocker = join(tempDir(), "a-file");
    writeFileSync(blocker, "x");
    const under = join(blocker, "x.db");
    await expectError(
      () => new SqliteStateStore({ path: under }),
      StateStoreError,
      `Cannot open the SQLite state store at ${under}: its directory ${blocker} cannot be made because a part of that path is a file, not a directory`,
    );
    const dir = join(tempDir(), "a-directory");
    mkdirSync(dir);
    await expectError(
      () => new SqliteStateStore({ path: dir }),
      StateStoreError,
      `Cannot open the SQLite state store at ${dir}: unable to open database file. The path must name a file (not a directory) in a directory this process can write.`,
    );
    const text = join(tempDir(), "notes.txt");
    writeFileSync(text, "not a database, just text that is long enough to be read ".repeat(20));
    await expectError(
      () => new SqliteStateStore({ path: text }),
      StateStoreError,
      `Cannot open the SQLite state store at ${text}: file is not a database. The file is damaged or not a SQLite database; restore it from a backup or use another path.`,
    );
  });

  it("a read-only SQLite file: the thread reads, a run is refused with a clear error and writes nothing", async (ctx) => {
    const path = join(tempDir(), "read-only.db");
    let store = track(new SqliteStateStore({ path }));
    const graph = (s: StateStore) => chain(Count, s, one("step"));
    await graph(store).invoke({}, { threadId: "t" });
    const history = await graph(store).history("t");
    await store.close();
    const writable = makeReadOnly(path);
    if (!writable) ctx.skip();
    try {
      store = track(new SqliteStateStore({ path }));
      expect((await graph(store).getState("t")).state).toEqual({ count: 1 });
      await expectError(
        () => graph(store).invoke({}, { threadId: "t" }),
        StateStoreError,
        `SQLite state store ${path} failed on thread "t": attempt to write a readonly database. The file or its directory is read-only: reading works, writing does not; open the store on a file this process can write.`,
      );
      expect(await graph(store).history("t")).toEqual(history);
      await store.close();
    } finally {
      writable?.();
    }
    store = track(new SqliteStateStore({ path }));
    expect((await graph(store).invoke({}, { threadId: "t" })).state).toEqual({ count: 2 });
  });
});

/**
 * Make a file read-only for this process, or return `null` when it cannot be done here:
 * permission bits stop other users, and root only through the immutable attribute.
 * @returns what makes it writable again.
 */
function makeReadOnly(path: string): (() => void) | null {
  if (process.getuid?.() !== 0) {
    chmodSync(path, 0o444);
    return () => chmodSync(path, 0o644);
  }
  try {
    execFileSync("chattr", ["+i", path], { stdio: "ignore" });
    return () => execFileSync("chattr", ["-i", path], { stdio: "ignore" });
  } catch {
    return null;
  }
}
