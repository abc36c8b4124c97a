/**
 * The state a run goes on from is the one a cold load of its stored events gives, for values
 * JSON gives back otherwise: a `-0` (JSON gives `0`) and an object key holding `undefined`
 * (JSON drops it) are taken as JSON gives them when the update is prepared, on every path a
 * value enters a state (a node's update, a reducer's update, `Replace`, the state returned
 * changed in place, the run input, `updateState`, a `Send` payload, a plain-object state, a
 * model's message). Compared three ways — the run's result, a warm `getState` (the same
 * graph) and a cold one (a new graph over a reopened store) — with `toEqual` and exactly
 * (`util.inspect` shows `-0` and a key holding `undefined`, which `toEqual` does not tell
 * apart). (Values JSON cannot keep at all — `undefined` in a list, a `Date` — are refused with
 * `StateStoreError` naming the path: test/adversarial-input.test.ts, src/state/state.test.ts.)
 */
import { inspect } from "node:util";
import { expect, it } from "vitest";
import { z } from "zod";
import { buildReactAgent } from "../../src/agents/index.js";
import type { Chat, ChatResponseInit } from "../../src/chat/types.js";
import { Graph, node, Send, START } from "../../src/graph/index.js";
import { END } from "../../src/graph/routing.js";
import { HumanMessage } from "../../src/index.js";
import { defineState, Replace, reducer } from "../../src/state/index.js";
import type { StateStore } from "../../src/stores/types.js";
import { tool } from "../../src/tools/index.js";
import { describeStores, type StoreFixture } from "./stores.js";

type Loose = Record<string, unknown>;

const State = defineState({
  x: z.number().default(1),
  obj: z.unknown().default(null),
  total: reducer(z.array(z.number()).default([]), (a: number[], b: number[]) => [...a, ...b]),
  note: z.string().default(""),
});

/** What `toEqual` does not see: `-0` and keys holding `undefined` show. */
const exactly = (v: unknown): string => inspect(v, { depth: null });

/** The state three ways (result, warm, cold), checked equal exactly; `check` runs on each. */
async function threeWays<G extends { getState(t: string): Promise<{ state: unknown }> }>(
  fx: StoreFixture,
  build: (store: StateStore) => G,
  run: (g: G) => Promise<unknown>,
  check: (state: Loose) => void,
): Promise<void> {
  const store = await fx.open();
  const g = build(store);
  const result = (await run(g)) as Loose;
  const warm = (await g.getState("t")).state as Loose;
  const cold = (await build(await fx.reopen(store)).getState("t")).state as Loose;
  expect(warm).toEqual(cold);
  expect(result).toEqual(cold);
  expect(exactly(warm)).toBe(exactly(cold));
  expect(exactly(result)).toBe(exactly(cold));
  for (const s of [result, warm, cold]) check(s);
}

function oneNodeGraph(store: StateStore, fn: (s: typeof State.State) => unknown) {
  const n = node(fn as never, { name: "n" });
  return new Graph(State, { stateStore: store }).flow(START.to(n), n.to(END));
}

describeStores("-0 and keys holding undefined are stored and held as JSON gives them", (fx) => {
  it("in a node's update: a field, nested values and a reducer's update", async () => {
    await threeWays(
      fx,
      (store) =>
        oneNodeGraph(store, () => ({
          x: -0,
          obj: { a: undefined, b: 1, list: [-0, { c: undefined, d: -0 }] },
          total: [-0, 2],
        })),
      async (g) => (await g.invoke({}, { threadId: "t" })).state,
      (s) => {
        expect(Object.is(s.x, 0)).toBe(true);
        expect(s.obj).toEqual({ b: 1, list: [0, { d: 0 }] });
        const obj = s.obj as { list: [number, Loose] };
        expect(Object.keys(obj)).toEqual(["b", "list"]);
        expect(Object.is(obj.list[0], 0)).toBe(true);
        expect(Object.keys(obj.list[1])).toEqual(["d"]);
        expect(Object.is(obj.list[1].d, 0)).toBe(true);
        expect(Object.is((s.total as number[])[0], 0)).toBe(true);
      },
    );
  });

  it("in a Replace and in the state a node returns changed in place", async () => {
    await threeWays(
      fx,
      (store) => {
        const a = node(() => ({ total: Replace([-0]) }), { name: "a" });
        const b = node(
          (s: typeof State.State) => {
            s.obj = { a: undefined, b: -0 };
            s.x = -0;
            return s;
          },
          { name: "b" },
        );
        return new Graph(State, { stateStore: store }).flow(START.to(a), a.to(b), b.to(END));
      },
      async (g) => (await g.invoke({}, { threadId: "t" })).state,
      (s) => {
        expect(Object.is(s.x, 0)).toBe(true);
        expect(Object.keys(s.obj as Loose)).toEqual(["b"]);
        expect(Object.is((s.obj as Loose).b, 0)).toBe(true);
        expect(Object.is((s.total as number[])[0], 0)).toBe(true);
      },
    );
  });

  it("in the run input and in updateState", async () => {
    await threeWays(
      fx,
      (store) => oneNodeGraph(store, () => ({ note: "ran" })),
      async (g) => {
        const { state } = await g.invoke(
          { x: -0, obj: { a: undefined, b: -0 } },
          { threadId: "t" },
        );
        expect(Object.is(state.x, 0)).toBe(true);
        expect(Object.keys(state.obj as Loose)).toEqual(["b"]);
        await g.updateState("t", { obj: { c: undefined, d: -0 }, total: [-0] });
        return (await g.getState("t")).state;
      },
      (s) => {
        expect(Object.is(s.x, 0)).toBe(true);
        expect(s.obj).toEqual({ d: 0 });
        expect(Object.keys(s.obj as Loose)).toEqual(["d"]);
        expect(Object.is((s.obj as Loose).d, 0)).toBe(true);
        expect(Object.is((s.total as number[])[0], 0)).toBe(true);
      },
    );
  });

  it("in a plain-object state (a graph without a definition)", async () => {
    await threeWays(
      fx,
      (store) => {
        const n = node(() => ({ x: -0, obj: { a: undefined, b: [-0] } }), { name: "n" });
        return new Graph(null, { stateStore: store }).flow(START.to(n), n.to(END));
      },
      async (g) => (await g.invoke({}, { threadId: "t" })).state,
      (s) => {
        expect(Object.is(s.x, 0)).toBe(true);
        expect(Object.keys(s.obj as Loose)).toEqual(["b"]);
        expect(Object.is(((s.obj as Loose).b as number[])[0], 0)).toBe(true);
      },
    );
  });

  // A task's payload is stored with its Send: a task resumed warm (the same graph) and one
  // resumed cold (a new graph) read the same payload.
  for (const resumed of ["warm", "cold"] as const) {
    it(`in a Send payload, the task resumed ${resumed}`, async () => {
      const store = await fx.open();
      const build = (s: StateStore) => {
        const worker = node(
          (st: typeof State.State, ctx) => {
            ctx.interrupt("go?", { key: "k" });
            const o = st.obj as Loose;
            return {
              note: `${Object.is(st.x, -0) ? "-0" : String(st.x)} ${Object.keys(o).join(",")}`,
            };
          },
          { name: "worker" },
        );
        const fan = node(() => new Send(worker, { x: -0, obj: { a: undefined, b: 1 } }), {
          name: "fan",
          goto: [worker],
        });
        return new Graph(State, { stateStore: s }).flow(START.to(fan), worker.to(END));
      };
      const g = build(store);
      expect((await g.invoke({}, { threadId: "t" })).status).toBe("interrupted");
      const by = resumed === "warm" ? g : build(await fx.reopen(store));
      const done = await by.invoke(null, { threadId: "t", resume: { k: true } });
      expect(done.state.note).toBe("0 b");
      const cold = await build(await fx.reopen(store)).getState("t");
      expect(cold.state.note).toBe("0 b");
    });
  }

  // A resume answer is stored with the run that gives it: the task reads it as a cold load of
  // that event gives it, in the run that answers (warm) and when a later run replays it.
  for (const resumed of ["warm", "cold"] as const) {
    it(`in a resume answer, read by the task and replayed ${resumed}`, async () => {
      const store = await fx.open();
      // (The type of an answer has no key holding undefined; plain JavaScript can give one.)
      const untyped = (v: Loose) => v as never;
      const told = (v: unknown) => {
        const o = v as Loose;
        return `${Object.is(o.v, -0) ? "-0" : String(o.v)} ${Object.keys(o).join(",")}`;
      };
      const build = (s: StateStore) => {
        const ask = node(
          (_: typeof State.State, ctx) => {
            const a = told(ctx.interrupt("a?", { key: "a" }));
            const b = told(ctx.interrupt("b?", { key: "b" }));
            return { note: `${a} | ${b}` };
          },
          { name: "ask" },
        );
        return new Graph(State, { stateStore: s }).flow(START.to(ask), ask.to(END));
      };
      const g = build(store);
      await g.invoke({}, { threadId: "t" });
      const first = await g.invoke(null, {
        threadId: "t",
        resume: { a: untyped({ v: -0, u: undefined }) },
      });
      expect(first.status).toBe("interrupted");
      const by = resumed === "warm" ? g : build(await fx.reopen(store));
      const done = await by.invoke(null, {
        threadId: "t",
        resume: { b: untyped({ v: -0, w: undefined }) },
      });
      expect(done.state.note).toBe("0 v | 0 v");
      const cold = await build(await fx.reopen(store)).getState("t");
      expect(cold.state.note).toBe("0 v | 0 v");
    });
  }

  it("in a model's message: tool-call arguments and usage", async () => {
    let n = 0;
    const chat: Chat = {
      model: "m",
      async complete(): Promise<ChatResponseInit> {
        n += 1;
        return n === 1
          ? {
              toolCalls: [{ id: "c1", name: "count", arguments: { n: -0 } }],
              usage: { inputTokens: 3, totalTokens: undefined },
            }
          : { content: "done", usage: { totalTokens: undefined } };
      },
      stream() {
        throw new Error("not used");
      },
    };
    const count = tool((a: { n: number }) => (Object.is(a.n, -0) ? "-0" : String(a.n)), {
      name: "count",
      description: "Count.",
      input: z.object({ n: z.number() }),
      output: z.string(),
    });
    await threeWays(
      fx,
      (store) => buildReactAgent(chat, { tools: [count], stateStore: store }),
      async (g) =>
        (await g.invoke({ messages: [HumanMessage({ content: "go" })] }, { threadId: "t" })).state,
      (s) => {
        const [, call, result, answer] = s.messages as Loose[];
        const args = (call!.toolCalls as { arguments: Loose }[])[0]!.arguments;
        expect(args).toEqual({ n: 0 });
        expect(Object.is(args.n, 0)).toBe(true);
        expect(Object.keys(call!.usage as Loose)).toEqual(["inputTokens"]);
        expect(result!.content).toBe(JSON.stringify({ result: "0" }));
        expect(Object.keys(answer!.usage as Loose)).toEqual([]);
        const last = (s.toolCalls as { arguments: Loose }[] | undefined) ?? [];
        for (const c of last) expect(Object.is(c.arguments.n, -0)).toBe(false);
      },
    );
  });
});
