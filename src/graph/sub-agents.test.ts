import { describe, expect, it } from "vitest";
import { z } from "zod";
import { caught, expectError } from "../../test/helpers.js";
import {
  AgentGroupError,
  AgentHandleLostError,
  AgentTimeoutError,
  GraphExecutionError,
  ValueError,
} from "../errors/index.js";
import { defineState, reducer } from "../state/define-state.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import { Graph } from "./graph.js";
import { node, START } from "./node.js";
import { END } from "./routing.js";
import { type AgentResult, type DurableAgentHandle, InProcessExecutor } from "./sub-agents.js";

const Worker = defineState({
  topic: z.string().default(""),
  answer: z.string().nullable().default(null),
});
type W = typeof Worker.State;
const Boss = defineState({
  topics: z.array(z.string()).default([]),
  answers: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
  handles: z
    .array(z.object({ id: z.string(), threadId: z.string().nullable(), executor: z.string() }))
    .default([]),
  threads: z.array(z.string().nullable()).default([]),
});
type B = typeof Boss.State;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function worker(opts: { failOn?: string; delayMs?: number } = {}) {
  const research = node(
    async (s: W, ctx) => {
      if (opts.delayMs) {
        await new Promise<void>((resolve, reject) => {
          const t = setTimeout(resolve, opts.delayMs);
          ctx.signal.addEventListener("abort", () => {
            clearTimeout(t);
            reject(ctx.signal.reason);
          });
        });
      }
      if (s.topic === opts.failOn) throw new RangeError(`cannot research ${s.topic}`);
      return { answer: `${s.topic}: found` };
    },
    { name: "research" },
  );
  return new Graph(Worker, { name: "researcher" }).flow(START.to(research), research.to(END));
}

describe("spawn and gather", () => {
  it("runs sub-agents concurrently on threads <thread>:sub:<id> and returns results in handle order", async () => {
    const store = new MemoryStateStore();
    const researcher = worker({ delayMs: 5 });
    const boss = node(
      async (s: B, ctx) => {
        const handles = await ctx.spawn(
          s.topics.map((topic) => ({ graph: researcher, input: { topic } })),
        );
        const results = await ctx.gather(handles);
        return {
          answers: results.map((r) => (r.state as W).answer ?? ""),
          threads: results.map((r) => r.threadId),
        };
      },
      { name: "boss" },
    );
    const g = new Graph(Boss, { stateStore: store }).flow(START.to(boss), boss.to(END));
    const { state } = await g.invoke(
      { topics: ["tides", "moons", "comets"] },
      { threadId: "boss-1" },
    );
    expect(state.answers).toEqual(["tides: found", "moons: found", "comets: found"]);
    expect(state.threads.map((t) => /^boss-1:sub:sa-[0-9a-f]+$/.test(t ?? ""))).toEqual([
      true,
      true,
      true,
    ]);
    expect((await researcher.getState(state.threads[0]!, { stateStore: store })).state.answer).toBe(
      "tides: found",
    );
  });

  it("raises AgentGroupError for a failed sub-agent, or returns it with returnExceptions", async () => {
    const researcher = worker({ failOn: "moons" });
    let returned: AgentResult[] = [];
    const boss = node(
      async (s: B, ctx) => {
        const handles = await ctx.spawn(
          s.topics.map((topic) => ({ graph: researcher, input: { topic } })),
        );
        if (s.answers.length === 0) {
          returned = await ctx.gather(handles, { returnExceptions: true });
          return {};
        }
        await ctx.gather(handles);
        return {};
      },
      { name: "boss" },
    );
    const g = new Graph(Boss).flow(START.to(boss), boss.to(END));
    await g.invoke({ topics: ["tides", "moons"] });
    expect(returned.map((r) => [r.status, r.error])).toEqual([
      ["completed", null],
      ["failed", { name: "RangeError", message: "cannot research moons" }],
    ]);
    const e = await caught(() => g.invoke({ topics: ["tides", "moons"], answers: ["x"] }));
    expect(e).toBeInstanceOf(AgentGroupError);
    expect(e.message).toMatch(
      /^1 of 2 sub-agent\(s\) did not complete: sa-[0-9a-f]+ failed \(RangeError: cannot research moons\)$/,
    );
    expect((e as AgentGroupError).errors[0]).toBeInstanceOf(RangeError);
  });

  it("cancels the unfinished ones when gather times out", async () => {
    const researcher = worker({ delayMs: 5_000 });
    const boss = node(
      async (s: B, ctx) => {
        const handles = await ctx.spawn(
          s.topics.map((topic) => ({ graph: researcher, input: { topic } })),
        );
        await ctx.gather(handles, { timeoutMs: 20 });
        return {};
      },
      { name: "boss" },
    );
    const e = await caught(() =>
      new Graph(Boss).flow(START.to(boss), boss.to(END)).invoke({ topics: ["slow"] }),
    );
    expect(e).toBeInstanceOf(AgentTimeoutError);
    expect(e.message).toMatch(
      /^gather timed out after 20 ms with 1 sub-agent\(s\) unfinished: sa-[0-9a-f]+; they were cancelled$/,
    );
  });

  it("raises AgentHandleLostError for an unknown handle or a second gather", async () => {
    const researcher = worker();
    const boss = node(
      async (_s: B, ctx) => {
        const [h] = await ctx.spawn([{ graph: researcher, input: { topic: "a" } }]);
        await ctx.gather([h!.id]);
        await expectError(
          () => ctx.gather([h!]),
          AgentHandleLostError,
          `Sub-agent "${h!.id}" was already gathered`,
        );
        await expectError(
          () => ctx.gather(["sa-nope"]),
          AgentHandleLostError,
          'Sub-agent "sa-nope" was not spawned in this run of graph "graph"; ids do not resolve after a pause (use submit and pollAgents to wait across runs)',
        );
        return { answers: ["checked"] };
      },
      { name: "boss" },
    );
    expect(
      (await new Graph(Boss).flow(START.to(boss), boss.to(END)).invoke({})).state.answers,
    ).toEqual(["checked"]);
  });

  it("checks the tasks", async () => {
    const researcher = worker();
    const boss = node(
      async (_s: B, ctx) => {
        await expectError(
          () => ctx.spawn([{ graph: researcher } as never]),
          TypeError,
          'spawn: task 0 (graph "researcher") has no input',
        );
        await expectError(
          () => ctx.spawn([{ graph: researcher, input: {} }], { threadPrefix: "" }),
          ValueError,
          "threadPrefix must be a non-empty string",
        );
        await expectError(
          () => ctx.submit([{ graph: researcher } as never], { executor: new InProcessExecutor() }),
          TypeError,
          'submit: task 0 (graph "researcher") has no input',
        );
        return {};
      },
      { name: "boss" },
    );
    await new Graph(Boss).flow(START.to(boss), boss.to(END)).invoke({});
  });

  it("cancels sub-agents never gathered and fails the run with GraphExecutionError", async () => {
    let cancelled = false;
    const slow = node(
      async (_s: W, ctx) => {
        await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve()));
        cancelled = true;
      },
      { name: "slow" },
    );
    const researcher = new Graph(Worker, { name: "researcher" }).flow(START.to(slow), slow.to(END));
    const boss = node(
      async (_s: B, ctx) => {
        await ctx.spawn([{ graph: researcher, input: { topic: "x" } }]);
        return {};
      },
      { name: "boss" },
    );
    const e = await caught(() => new Graph(Boss).flow(START.to(boss), boss.to(END)).invoke({}));
    expect(e).toBeInstanceOf(GraphExecutionError);
    expect(e.message).toMatch(
      /^Run of graph "graph" ended with 1 sub-agent\(s\) never gathered \(sa-[0-9a-f]+\); they were cancelled\. Gather them with ctx\.gather, or use ctx\.submit to wait in a later run$/,
    );
    expect(cancelled).toBe(true);
  });
});

describe("submit and pollAgents", () => {
  it("starts sub-agents on an executor and polls them in a later run", async () => {
    const store = new MemoryStateStore();
    const executor = new InProcessExecutor();
    let gate!: () => void;
    const open = new Promise<void>((r) => {
      gate = r;
    });
    const wait = node(
      async (s: W) => {
        await open;
        return { answer: `${s.topic} done` };
      },
      { name: "wait" },
    );
    const researcher = new Graph(Worker, { name: "researcher" }).flow(START.to(wait), wait.to(END));
    const boss = node(
      async (s: B, ctx) => {
        if (s.handles.length === 0) {
          const handles = await ctx.submit(
            s.topics.map((topic) => ({ graph: researcher, input: { topic } })),
            { executor },
          );
          return { handles };
        }
        const results = await ctx.pollAgents(s.handles as DurableAgentHandle[], { executor });
        return {
          answers: results.map((r) => (r === null ? "running" : String((r.state as W).answer))),
        };
      },
      { name: "boss" },
    );
    const g = new Graph(Boss, { stateStore: store }).flow(START.to(boss), boss.to(END));
    const first = await g.invoke({ topics: ["a", "b"] }, { threadId: "bg" });
    expect(
      first.state.handles.map((h) => [h.executor, /^bg:bg:sa-[0-9a-f]+$/.test(h.threadId ?? "")]),
    ).toEqual([
      ["in-process", true],
      ["in-process", true],
    ]);
    expect((await g.invoke({}, { threadId: "bg" })).state.answers).toEqual(["running", "running"]);
    gate();
    await sleep(10);
    expect((await g.invoke({}, { threadId: "bg" })).state.answers).toEqual([
      "running",
      "running",
      "a done",
      "b done",
    ]);
    await expectError(
      () => executor.poll([{ id: "sa-x", threadId: null, executor: "in-process" }]),
      AgentHandleLostError,
      'Executor "in-process" does not know sub-agent "sa-x" (was it submitted to another executor, or before a restart?)',
    );
  });
});
