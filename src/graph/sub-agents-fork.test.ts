/**
 * Issue 13, item 4, for sub-agents: a fork of a parent whose submitted sub-agents exist shares
 * their threads (they are the same jobs: a sub-agent cannot pause, and its run depends only on
 * the input fixed when it was submitted), so the branch and the main branch poll one result and
 * the sub-agent runs once; a fork from before the submit submits its own, on threads of its own.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineState, reducer } from "../state/define-state.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import { Graph } from "./graph.js";
import { node, START } from "./node.js";
import { END } from "./routing.js";
import { type DurableAgentHandle, InProcessExecutor } from "./sub-agents.js";

const Worker = defineState({ topic: z.string().default(""), answer: z.string().default("") });
type W = typeof Worker.State;
const Boss = defineState({
  topic: z.string().default(""),
  answers: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
  handles: z
    .array(z.object({ id: z.string(), threadId: z.string().nullable(), executor: z.string() }))
    .default([]),
});
type B = typeof Boss.State;

function setup() {
  const store = new MemoryStateStore();
  const executor = new InProcessExecutor();
  const runs: string[] = [];
  const research = node(
    (s: W) => {
      runs.push(s.topic);
      return { answer: `${s.topic} done` };
    },
    { name: "research" },
  );
  const researcher = new Graph(Worker, { name: "researcher" }).flow(
    START.to(research),
    research.to(END),
  );
  const submit = node(
    async (s: B, ctx) => ({
      handles: await ctx.submit([{ graph: researcher, input: { topic: s.topic } }], { executor }),
    }),
    { name: "submit" },
  );
  const poll = node(
    async (s: B, ctx) => {
      for (;;) {
        const [r] = await ctx.pollAgents(s.handles as DurableAgentHandle[], { executor });
        if (r) return { answers: [`${String((r.state as W).answer)} @${r.threadId}`] };
        await new Promise((res) => setTimeout(res, 2));
      }
    },
    { name: "poll" },
  );
  const g = () =>
    new Graph(Boss, { name: "boss", stateStore: store }).flow(
      START.to(submit),
      submit.to(poll),
      poll.to(END),
    );
  return { store, runs, g };
}

describe("a fork shares the sub-agents submitted before it", () => {
  it("after the submit: the branch polls the same thread and result; the sub-agent ran once", async () => {
    const { store, runs, g } = setup();
    const main = await g().invoke({ topic: "tides" }, { threadId: "t" });
    const thread = main.state.handles[0]!.threadId!;
    expect(thread).toMatch(/^t:bg:sa-[0-9a-z]+$/);
    expect(main.state.answers).toEqual([`tides done @${thread}`]);
    // Fork where the handle is in the state and the poll has not run.
    const committed = (await g().history("t")).filter((e) => e.type === "step_committed");
    await g().fork("t", { eventId: committed[0]!.id, branchId: "b" });
    const branch = await g().invoke(null, { threadId: "t", branchId: "b" });
    expect(branch.state.handles).toEqual(main.state.handles);
    expect(branch.state.answers).toEqual([`tides done @${thread}`]);
    expect(runs).toEqual(["tides"]);
    expect((await store.read(thread, "main")).filter((e) => e.type === "run_started").length).toBe(
      1,
    );
  });

  it("before the submit: the branch submits its own sub-agent, on a thread of its own", async () => {
    const { runs, g } = setup();
    const main = await g().invoke({ topic: "tides" }, { threadId: "t" });
    const started = (await g().history("t")).find((e) => e.type === "run_started");
    await g().fork("t", { eventId: started!.id, branchId: "b" });
    const branch = await g().invoke(null, { threadId: "t", branchId: "b" });
    const mine = branch.state.handles[0]!.threadId!;
    expect(mine).not.toBe(main.state.handles[0]!.threadId);
    expect(branch.state.answers).toEqual([`tides done @${mine}`]);
    expect(runs).toEqual(["tides", "tides"]);
  });
  it("a fork of a fork after the submit polls the same thread and result too; the sub-agent ran once", async () => {
    const { runs, g } = setup();
    const main = await g().invoke({ topic: "tides" }, { threadId: "t" });
    const thread = main.state.handles[0]!.threadId!;
    const committed = (await g().history("t")).filter((e) => e.type === "step_committed");
    await g().fork("t", { eventId: committed[0]!.id, branchId: "b" });
    await g().invoke(null, { threadId: "t", branchId: "b" });
    // c forks from b's own run start: the handle is in its state, the poll has not run.
    const bStart = (await g().history("t", { branchId: "b" })).find(
      (e) => e.type === "run_started" && e.branchId === "b",
    );
    await g().fork("t", { eventId: bStart!.id, branchId: "c" });
    const c = await g().invoke(null, { threadId: "t", branchId: "c" });
    expect(c.state.handles).toEqual(main.state.handles);
    expect(c.state.answers).toEqual([`tides done @${thread}`]);
    expect(runs).toEqual(["tides"]);
  });
});
