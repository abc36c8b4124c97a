/**
 * Snapshots renewed by runs (load-position.ts `snapshotDue`) on a long thread whose supersteps
 * fan out, pause on interrupts that the next call answers, edit and remove messages that
 * earlier snapshots hold, and once fail in the run a snapshot was due after: each snapshot a
 * run keeps (its in-memory position) reads back, through a new graph, as exactly what a fold
 * of every event gives and what the writing graph holds; the failed run keeps none and leaves
 * the thread's state as it was.
 */
import { expect, it } from "vitest";
import { z } from "zod";
import { eventsOnly } from "../../test/durable/snapshot.fixture.js";
import { AIMessage, HumanMessage } from "../chat/messages.js";
import { RemoveMessage } from "../state/add-messages.js";
import { defineState, messagesField, reducer } from "../state/define-state.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import type { StateStore } from "../stores/types.js";
import { Graph } from "./graph.js";
import { node, START } from "./node.js";
import { END } from "./routing.js";

const State = defineState({
  messages: messagesField(),
  n: z.number().default(0),
  log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
});
type S = typeof State.State;

/** Node `b` throws when the state's `n` is this. */
let failAt = -1;

function build(store: StateStore) {
  const a = node(
    (s: S) => ({ messages: [AIMessage({ id: `a${s.n}`, content: `a ${s.n}` })], log: [`a${s.n}`] }),
    { name: "a" },
  );
  const b = node(
    (s: S) => {
      if (s.n === failAt) throw new Error("boom");
      const edits = [];
      if (s.n > 10 && s.n % 7 === 0)
        edits.push(AIMessage({ id: `a${s.n - 10}`, content: `edited ${s.n}` }));
      if (s.n > 20 && s.n % 11 === 0) edits.push(RemoveMessage(`h${s.n - 20}`));
      return { messages: edits, log: [`b${s.n}`] };
    },
    { name: "b" },
  );
  const c = node(
    (s: S, ctx) => {
      const answer = s.n % 9 === 0 ? ctx.interrupt<string>("ok?", { key: `k${s.n}` }) : "auto";
      return { n: s.n + 1, log: [`c ${answer}`] };
    },
    { name: "c" },
  );
  return new Graph(State, { name: "g", stateStore: store }).flow(
    START.to(a),
    START.to(b),
    a.to(c),
    b.to(c),
    c.to(END),
  );
}

it("renewed snapshots read back as the fold of every event, across pauses and a failed run", async () => {
  const store = new MemoryStateStore();
  const warm = build(store);
  const same = async (at: string) => {
    const all = JSON.stringify(await build(eventsOnly(store)).getState("t"));
    expect(JSON.stringify(await build(store).getState("t")), at).toBe(all);
    expect(JSON.stringify(await warm.getState("t")), at).toBe(all);
  };
  const kept: [number, number][] = [];
  let paused = 0;
  for (let t = 0; t < 900; t++) {
    const input = { messages: [HumanMessage({ id: `h${t}`, content: `q ${t}` })] };
    if (t === 727) {
      // The run after which the second renewal was due (at 4,611 events) fails instead.
      const before = await warm.getState("t");
      failAt = before.state.n;
      await expect(warm.invoke(input, { threadId: "t" })).rejects.toThrow("boom");
      failAt = -1;
      expect((await store.loadSnapshot("t", "main"))!.seq).toBe(4098);
      const after = await build(store).getState("t");
      // Its superstep committed nothing: the state is the one before, with the run's input.
      const { messages, ...rest } = after.state;
      const { messages: held, ...restBefore } = before.state;
      expect([after.status, rest]).toEqual(["failed", restBefore]);
      expect(JSON.stringify(messages)).toBe(
        JSON.stringify([...held, { type: "human", id: `h${t}`, content: `q ${t}` }]),
      );
      await same("after the failed run");
      continue;
    }
    let r = await warm.invoke(input, { threadId: "t" });
    if (r.status === "interrupted") {
      paused++;
      const resume = Object.fromEntries(r.interrupts.map((i) => [i.key, `yes ${t}`]));
      r = await warm.invoke(null, { threadId: "t", resume });
    }
    expect(r.status).toBe("completed");
    const snapshot = await store.loadSnapshot("t", "main");
    if (snapshot && snapshot.seq !== kept.at(-1)?.[1]) {
      kept.push([t, snapshot.seq]);
      await same(`after turn ${t}`);
    }
  }
  expect(paused).toBe(100);
  expect(kept).toEqual([
    [646, 4098],
    [728, 4614],
    [809, 5127],
    [890, 5640],
  ]);
  expect((await store.getBranch("t", "main"))!.lastSeq).toBe(5697);
  await same("at the end");
}, 120_000);
