import { describe, expect, it } from "vitest";
import { z } from "zod";
import { expectError } from "../../test/helpers.js";
import { ValueError } from "../errors/index.js";
import type { JsonObject } from "../json/index.js";
import { defineState, reducer } from "../state/index.js";
import { MemoryStateStore } from "../stores/index.js";
import { Graph } from "./graph.js";
import { node, START } from "./node.js";
import { resumeBase, undoResume } from "./resume-base.js";
import { END } from "./routing.js";
import { emptyPosition, foldEvents } from "./thread-state.js";

const ask = (key: string, taskId: string) => ({ key, value: `${key}?`, node: "n", taskId });

describe("resumeBase and undoResume", () => {
  it("keep the pending interrupts, the answers and the paused tasks' caches, and put them back", () => {
    const pos = {
      step: 3,
      known: { "3:2": { update: { out: ["quiet"] }, routes: null } } as Record<string, unknown>,
      caches: { "3:0": { c1: "done" }, "3:2": { x: 1 } } as Record<string, JsonObject>,
      interrupts: [ask("3:0#c2", "3:0"), ask("3:1#0", "3:1")],
      answers: { "3:0#c1": "yes" } as Record<string, string>,
    };
    const base = resumeBase(pos);
    expect(base).toEqual({
      step: 3,
      interrupts: [ask("3:0#c2", "3:0"), ask("3:1#0", "3:1")],
      answers: { "3:0#c1": "yes" },
      caches: { "3:0": { c1: "done" } },
    });
    // What a failed run did: answers added, 3:0 saved more, 3:1 finished, 3:2 saved more.
    pos.answers = { "3:0#c1": "yes", "3:0#c2": "no", "3:1#0": "B" };
    pos.caches = { "3:0": { c1: "done", c2: "denied" }, "3:2": { x: 2 } };
    pos.known["3:1"] = { update: { out: ["b=B"] }, routes: null };
    pos.interrupts = [ask("3:0#c2", "3:0")];
    undoResume(pos, base);
    expect(pos).toEqual({
      step: 3,
      known: { "3:2": { update: { out: ["quiet"] }, routes: null } },
      caches: { "3:0": { c1: "done" }, "3:2": { x: 2 } },
      interrupts: [ask("3:0#c2", "3:0"), ask("3:1#0", "3:1")],
      answers: { "3:0#c1": "yes" },
    });
  });

  it("undoes nothing once the position has moved past the superstep it was taken at", () => {
    const pos = { step: 2, known: {}, caches: {}, interrupts: [ask("2:0#0", "2:0")], answers: {} };
    const base = resumeBase(pos);
    const later = { step: 3, known: {}, caches: { "3:0": { a: 1 } }, interrupts: [], answers: {} };
    undoResume(later, base);
    expect(later).toEqual({
      step: 3,
      known: {},
      caches: { "3:0": { a: 1 } },
      interrupts: [],
      answers: {},
    });
  });
});

describe("a failed resume in the fold", () => {
  it("folds the same from a snapshot taken while the run went on as from the whole log", async () => {
    const State = defineState({
      out: reducer(z.array(z.string()).default([]), (a, b) => [...a, ...b]),
    });
    type S = typeof State.State;
    const asker = node(
      async (_s: S, ctx) => {
        const first = ctx.interrupt<string>("first?");
        const second = ctx.interrupt<string>("second?");
        ctx.cache.second = second;
        await ctx.saveCache();
        if (second === "bad") throw new ValueError("second: bad");
        return { out: [`${first}/${second}`] };
      },
      { name: "asker" },
    );
    const store = new MemoryStateStore();
    const graph = new Graph(State, { stateStore: store }).flow(START.to(asker), asker.to(END));
    await graph.invoke({}, { threadId: "s" });
    await graph.invoke(null, { threadId: "s", resume: { "0:0#0": "A" } });
    await expectError(
      () => graph.invoke(null, { threadId: "s", resume: { "0:0#1": "bad" } }),
      ValueError,
      "second: bad",
    );
    const events = await store.read("s", "main");
    expect(events.map((e) => e.type)).toEqual([
      "run_started",
      "task_interrupted",
      "run_finished",
      "run_started",
      "task_interrupted",
      "run_finished",
      "run_started",
      "task_cache",
      "run_failed",
    ]);
    const pending = [{ key: "0:0#1", value: "second?", node: "asker", taskId: "0:0" }];
    const whole = foldEvents(State, emptyPosition(State), events);
    expect(whole.interrupts).toEqual(pending);
    // The answer of the run that paused stays; the failed run's answer and cache do not.
    expect(whole.answers).toEqual({ "0:0#0": "A" });
    expect(whole.caches).toEqual({ "0:0": {} });
    expect(whole.resumed).toBeUndefined();
    // A snapshot after the failed run's task_cache: JSON, as a store keeps it.
    const mid = JSON.parse(
      JSON.stringify(foldEvents(State, emptyPosition(State), events.slice(0, 8))),
    );
    expect(mid.caches).toEqual({ "0:0": { second: "bad" } });
    expect(mid.resumed).toEqual({
      step: 0,
      interrupts: pending,
      answers: { "0:0#0": "A" },
      caches: { "0:0": {} },
    });
    expect(foldEvents(State, mid, events.slice(8))).toEqual(whole);
    const done = await graph.invoke(null, { threadId: "s", resume: { "0:0#1": "B" } });
    expect(done.state.out).toEqual(["A/B"]);
  });
});

describe("a resume with no end in the log (its process was killed)", () => {
  it("keeps its answers: invoke(null) uses them again, and only a new answer replaces one", async () => {
    const State = defineState({
      out: reducer(z.array(z.string()).default([]), (a, b) => [...a, ...b]),
    });
    type S = typeof State.State;
    const seen: string[] = [];
    const asker = node(
      (_s: S, ctx) => {
        const answer = ctx.interrupt<string>("first?");
        seen.push(answer);
        return { out: [answer] };
      },
      { name: "asker" },
    );
    const store = new MemoryStateStore();
    const graph = new Graph(State, { stateStore: store }).flow(START.to(asker), asker.to(END));
    await graph.invoke({}, { threadId: "k" });
    await graph.invoke(null, { threadId: "k", resume: { "0:0#0": "A" } });
    const events = await store.read("k", "main");
    expect(events.map((e) => e.type)).toEqual([
      "run_started",
      "task_interrupted",
      "run_finished",
      "run_started",
      "step_committed",
      "run_finished",
    ]);
    // A branch whose log ends at the resume's run_started is what a killed process leaves.
    const resumeStart = events[3]!;
    expect(resumeStart.data).toMatchObject({ resume: { "0:0#0": "A" } });
    await graph.fork("k", { eventId: resumeStart.id, branchId: "killed" });
    const pending = [{ key: "0:0#0", value: "first?", node: "asker", taskId: "0:0" }];
    expect(await graph.getState("k", { branchId: "killed" })).toEqual({
      state: { out: [] },
      step: 0,
      next: ["asker"],
      interrupts: pending,
      status: "interrupted",
      lastEventId: "k/main/4",
      breakpoint: null,
    });
    const again = await graph.invoke(null, { threadId: "k", branchId: "killed" });
    expect([again.status, again.state.out]).toEqual(["completed", ["A"]]);
    await graph.fork("k", { eventId: resumeStart.id, branchId: "replaced" });
    const replaced = await graph.invoke(null, {
      threadId: "k",
      branchId: "replaced",
      resume: { "0:0#0": "Z" },
    });
    expect([replaced.status, replaced.state.out]).toEqual(["completed", ["Z"]]);
    expect(seen).toEqual(["A", "A", "Z"]);
  });
});
