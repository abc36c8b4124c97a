import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildReactAgent } from "../agents/react-agent.js";
import { HumanMessage, ScriptedChat } from "../chat/index.js";
import { MemoryStateStore, memoryStoreView } from "../stores/memory-state-store.js";
import { tool } from "../tools/tool.js";
import { ModelCallLimitMiddleware } from "./model-call-limit.js";
import type { ToolLimitMiddleware } from "./tool-limit.js";
import type { Middleware, RunEndInfo } from "./types.js";

let seenDuringCall: number[] = [];
let limitSeen: ToolLimitMiddleware | null = null;
const lookup = tool(
  ({ q }) => {
    if (limitSeen) seenDuringCall.push(limitSeen.tracked());
    return `found ${q}`;
  },
  { name: "lookup", description: "Look it up.", input: z.object({ q: z.string() }) },
);
const call = (id: string) => ({ id, name: "lookup", arguments: { q: id } });
const ask = (text: string) => ({ messages: [HumanMessage({ content: text })] });

/** An agent whose model calls the tool once, then answers, `runs` times; and its limiter. */
function agentOf(runs: number, store: MemoryStateStore | null, extra: Middleware[] = []) {
  const script = Array.from({ length: runs }, (_, i) => [{ toolCalls: [call(`c${i}`)] }, "Done."]);
  const agent = buildReactAgent(new ScriptedChat(script.flat()), {
    tools: [lookup],
    stateStore: store,
    middleware: extra,
  });
  const limit = agent.middleware[0] as ToolLimitMiddleware;
  expect(limit.name).toBe("ToolLimitMiddleware");
  limitSeen = limit;
  seenDuringCall = [];
  return { agent, limit };
}

describe("per-run middleware state ends with the run (onRunEnd)", () => {
  it("ToolLimitMiddleware drops a completed run's budget, with and without a thread", async () => {
    const { agent, limit } = agentOf(4, new MemoryStateStore());
    for (let i = 0; i < 3; i++) {
      const r = await agent.invoke(ask(`turn ${i}`), { threadId: "t1" });
      expect(r.status).toBe("completed");
      expect(limit.tracked()).toBe(0);
      expect(limit.used(r.runId)).toBe(0);
    }
    const r = await agent.invoke(ask("no thread"));
    expect(r.status).toBe("completed");
    expect(limit.tracked()).toBe(0);
    // While a run called its tool, its budget was there.
    expect(seenDuringCall).toEqual([1, 1, 1, 1]);
  });

  it("keeps the budget of a paused run for its resume, and drops it when the resume completes", async () => {
    const { agent, limit } = agentOf(1, new MemoryStateStore());
    const paused = await agent.invoke(ask("go"), { threadId: "t1", interruptAfter: ["act"] });
    expect(paused.status).toBe("interrupted");
    expect(limit.tracked()).toBe(1);
    expect(limit.used(paused.runId)).toBe(1);
    const resumed = await agent.invoke(null, { threadId: "t1" });
    expect(resumed.status).toBe("completed");
    expect(resumed.state.messages.at(-1)!.content).toBe("Done.");
    expect(limit.tracked()).toBe(0);
    expect(limit.used(paused.runId)).toBe(0);
  });

  it("keeps the budget of a failed run (it may be resumed)", async () => {
    const chat = new ScriptedChat([{ toolCalls: [call("c0")] }, new Error("model down")]);
    const agent = buildReactAgent(chat, { tools: [lookup], stateStore: new MemoryStateStore() });
    const limit = agent.middleware[0] as ToolLimitMiddleware;
    limitSeen = null;
    const error = await agent.invoke(ask("go"), { threadId: "t1" }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect(limit.tracked()).toBe(1);
  });

  it("ModelCallLimitMiddleware drops a completed run's budget", async () => {
    const calls = ModelCallLimitMiddleware({ maxModelCalls: 5 });
    const { agent } = agentOf(2, new MemoryStateStore(), [calls]);
    const r = await agent.invoke(ask("one"), { threadId: "t1" });
    expect(calls.used(r.runId)).toBe(0);
    expect(calls.tracked()).toBe(0);
    const paused = await agent.invoke(ask("two"), { threadId: "t1", interruptAfter: ["think"] });
    expect(calls.tracked()).toBe(1);
    expect(calls.used(paused.runId)).toBe(1);
    await agent.invoke(null, { threadId: "t1" });
    await agent.invoke(null, { threadId: "t1" });
    expect(calls.tracked()).toBe(0);
  });

  it("drops the budget when the run completes in a new graph object over a new store instance (cold)", async () => {
    const calls = ModelCallLimitMiddleware({ maxModelCalls: 5 });
    const store = new MemoryStateStore();
    const first = agentOf(1, store, [calls]).agent;
    const paused = await first.invoke(ask("go"), { threadId: "t1", interruptAfter: ["think"] });
    expect(paused.status).toBe("interrupted");
    expect(calls.tracked()).toBe(1);
    // The resume folds the thread from the store: its originRunId is the paused run's.
    const view = memoryStoreView(store)!;
    const second = buildReactAgent(new ScriptedChat(["Done."]), {
      tools: [lookup],
      stateStore: view,
      middleware: [calls],
    });
    const resumed = await second.invoke(null, { threadId: "t1" });
    expect(resumed.status).toBe("completed");
    expect(resumed.state.messages.at(-1)!.content).toBe("Done.");
    expect(calls.tracked()).toBe(0);
    expect(calls.used(paused.runId)).toBe(0);
  });

  it("tells every middleware once per completed run, in order, past a hook that throws", async () => {
    const told: string[] = [];
    const failing: Middleware = {
      onRunEnd() {
        told.push("failing");
        throw new Error("hook failed");
      },
    };
    const spy: Middleware = {
      onRunEnd(run: RunEndInfo) {
        told.push(`spy ${run.graphName} ${run.threadId} ${run.runId === run.originRunId}`);
      },
    };
    const { agent } = agentOf(2, new MemoryStateStore(), [failing, spy]);
    const paused = await agent.invoke(ask("go"), { threadId: "t1", interruptAfter: ["act"] });
    expect(told).toEqual([]);
    const resumed = await agent.invoke(null, { threadId: "t1" });
    expect(resumed.status).toBe("completed");
    expect(resumed.runId).not.toBe(paused.runId);
    // The resume continued the paused run: its originRunId is the paused run's.
    expect(told).toEqual(["failing", `spy ${agent.name} t1 false`]);
    await agent.invoke(ask("again"));
    expect(told).toEqual([
      "failing",
      `spy ${agent.name} t1 false`,
      "failing",
      `spy ${agent.name} null true`,
    ]);
  });
});
