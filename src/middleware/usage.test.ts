import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { caught, expectError } from "../../test/helpers.js";
import { buildReactAgent } from "../agents/react-agent.js";
import { HumanMessage } from "../chat/messages.js";
import type { Usage } from "../chat/parts.js";
import { ScriptedChat, type ScriptedResponse } from "../chat/scripted-chat.js";
import { GraphConfigError, UsageBudgetExceededError, ValueError } from "../errors/index.js";
import { SqliteStateStore } from "../integrations/sqlite/index.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import type { StateStore } from "../stores/types.js";
import { tool } from "../tools/tool.js";
import { checkPrices, costOf, type PriceTable, priceOf } from "./prices.js";
import type { Middleware } from "./types.js";
import { UsageBudgetMiddleware } from "./usage-budget.js";
import { withUsage } from "./usage-report.js";
import { UsageLedger, usageFromEvents } from "./usage-totals.js";

const prices: PriceTable = {
  "claude-sonnet-4": { inputPerMillion: 3, outputPerMillion: 15, cachedInputPerMillion: 0.3 },
  "gpt-4o-mini": { inputPerMillion: 0.15, outputPerMillion: 0.6 },
};

const lookup = tool(({ q }: { q: string }) => `found ${q}`, {
  name: "lookup",
  description: "Look up.",
  input: z.object({ q: z.string() }),
});

const ask = (text: string) => ({ messages: [HumanMessage({ content: text })] });
const toolTurn = (id: string, usage: Usage): ScriptedResponse => ({
  content: null,
  toolCalls: [{ id, name: "lookup", arguments: { q: id } }],
  usage,
});
const answer = (text: string, usage: Usage): ScriptedResponse => ({ content: text, usage });

// Run 1: a tool turn (0.222 USD) and an answer (0.435 USD); run 2: one answer (0.405 USD).
const call1 = {
  inputTokens: 100_000,
  outputTokens: 2_000,
  totalTokens: 102_000,
  cachedInputTokens: 40_000,
};
const call2 = {
  inputTokens: 120_000,
  outputTokens: 5_000,
  totalTokens: 125_000,
  reasoningTokens: 1_000,
};
const call3 = { inputTokens: 130_000, outputTokens: 1_000, totalTokens: 131_000 };

function agentOn(
  store: StateStore,
  responses: ScriptedResponse[],
  model: string,
  middleware: Middleware[] = [],
) {
  return buildReactAgent(new ScriptedChat(responses, { model }), {
    tools: [lookup],
    stateStore: store,
    middleware,
  });
}

describe("usage totals from the event log", () => {
  it("per run and per thread, with cost to the cent, the same cold from a reopened SQLite file", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "nodestep-usage-")), "t.db");
    const store = new SqliteStateStore({ path });
    const r1 = await agentOn(
      store,
      [toolTurn("c1", call1), answer("One.", call2)],
      "claude-sonnet-4",
    ).invoke(ask("first"), { threadId: "t1" });
    const r2 = await agentOn(store, [answer("Two.", call3)], "claude-sonnet-4").invoke(
      ask("second"),
      {
        threadId: "t1",
      },
    );

    const withRun1 = await withUsage(r1, { store, prices });
    expect(withRun1.usage.usage).toEqual({
      inputTokens: 220_000,
      outputTokens: 7_000,
      totalTokens: 227_000,
      cachedInputTokens: 40_000,
      reasoningTokens: 1_000,
      calls: 2,
    });
    expect(withRun1.usage.cost).toEqual({
      usd: 0.657,
      byModel: { "claude-sonnet-4": 0.657 },
      unpriced: [],
    });
    const withRun2 = await withUsage(r2, { store, prices });
    expect(withRun2.usage.cost?.usd).toBe(0.405);
    expect(withRun2.threadUsage.usage.totalTokens).toBe(358_000);
    expect(withRun2.threadUsage.cost?.usd).toBe(1.062);
    expect(withRun2.state.finalText).toBe("Two.");

    // Cold: a new store instance on the same file and a new ledger.
    await store.close();
    const reopened = new SqliteStateStore({ path });
    const ledger = new UsageLedger(reopened);
    const thread = await ledger.thread("t1");
    expect(thread.usage).toEqual({
      inputTokens: 350_000,
      outputTokens: 8_000,
      totalTokens: 358_000,
      cachedInputTokens: 40_000,
      reasoningTokens: 1_000,
      calls: 3,
    });
    expect(Object.keys(thread.byModel)).toEqual(["claude-sonnet-4"]);
    expect(costOf(thread.byModel, prices).usd).toBe(1.062);
    expect((await ledger.run("t1", r1.runId)).usage.calls).toBe(2);
    expect((await ledger.run("t1", "no-such-run")).usage.calls).toBe(0);
    expect(
      usageFromEvents(await reopened.read("t1", "main"), { runId: r2.runId }).usage.totalTokens,
    ).toBe(131_000);
    await reopened.close();
  });

  it("a fork has its parent's totals up to the fork point and its own; the parent keeps its own", async () => {
    const store = new MemoryStateStore();
    const r1 = await agentOn(
      store,
      [toolTurn("c1", call1), answer("One.", call2)],
      "claude-sonnet-4",
    ).invoke(ask("first"), { threadId: "t1" });
    await agentOn(store, [answer("Two.", call3)], "claude-sonnet-4").invoke(ask("second"), {
      threadId: "t1",
    });
    const events = await store.read("t1", "main");
    const endOfRun1 = events.filter((e) => e.runId === r1.runId).at(-1)!;
    const agent = agentOn(
      store,
      [answer("Fork.", { inputTokens: 10_000, outputTokens: 1_000 })],
      "gpt-4o-mini",
    );
    const fork = await agent.fork("t1", { eventId: endOfRun1.id, branchId: "alt" });
    const onFork = await withUsage(
      await agent.invoke(ask("again"), { threadId: "t1", branchId: fork.branchId }),
      {
        store,
        prices,
      },
    );
    // 10 000 × 0.15 + 1 000 × 0.6 = 2 100 millionths of a dollar.
    expect(onFork.usage.cost).toEqual({
      usd: 0.0021,
      byModel: { "gpt-4o-mini": 0.0021 },
      unpriced: [],
    });
    expect(onFork.threadUsage.usage.totalTokens).toBe(227_000 + 11_000);
    expect(onFork.threadUsage.cost).toEqual({
      usd: 0.6591,
      byModel: { "claude-sonnet-4": 0.657, "gpt-4o-mini": 0.0021 },
      unpriced: [],
    });
    const ledger = new UsageLedger(store);
    expect((await ledger.thread("t1", "main")).usage.totalTokens).toBe(358_000);
    expect((await ledger.thread("t1", "alt")).usage.totalTokens).toBe(238_000);
  });

  it("a ledger reads only the events after its running total; a model without a price is listed", async () => {
    const store = new MemoryStateStore();
    const reads: (number | undefined)[] = [];
    const read = store.read.bind(store);
    store.read = (threadId, branchId, options) => {
      reads.push(options?.afterSeq);
      return read(threadId, branchId, options);
    };
    const ledger = new UsageLedger(store);
    expect((await ledger.thread("t1")).usage.calls).toBe(0);
    await agentOn(store, [answer("One.", call3)], "mystery-model").invoke(ask("a"), {
      threadId: "t1",
    });
    const first = await ledger.thread("t1");
    const seqAfterFirst = (await store.getBranch("t1", "main"))!.lastSeq;
    await agentOn(store, [answer("Two.", call3)], "mystery-model").invoke(ask("b"), {
      threadId: "t1",
    });
    reads.length = 0;
    const second = await ledger.thread("t1");
    expect(reads).toEqual([seqAfterFirst]);
    expect(first.usage.totalTokens).toBe(131_000);
    expect(second.usage.totalTokens).toBe(262_000);
    reads.length = 0;
    await ledger.thread("t1");
    expect(reads).toEqual([]); // nothing new: no read at all
    expect(costOf(second.byModel, prices)).toEqual({
      usd: 0,
      byModel: {},
      unpriced: ["mystery-model"],
    });
  });

  it("prices: longest prefix, checks with the field named", async () => {
    expect(priceOf(prices, "gpt-4o-mini-2024-07-18")).toBe(prices["gpt-4o-mini"]);
    expect(priceOf(prices, "gpt-4o")).toBeNull();
    await expectError(
      () => checkPrices({ m: { inputPerMillion: 1 } }),
      ValueError,
      'prices["m"].outputPerMillion must be a number ≥ 0 (US dollars per million tokens), got nothing',
    );
    await expectError(
      () => checkPrices({ m: { inputPerMillion: 1, outputPerMillion: 2, input: 3 } }),
      ValueError,
      'prices["m"] has an unknown field "input"',
    );
  });
});

describe("UsageBudgetMiddleware", () => {
  it("stops with UsageBudgetExceededError once the thread has used maxTokens; the thread is left as it was", async () => {
    const store = new MemoryStateStore();
    const budget = UsageBudgetMiddleware({ maxTokens: 200_000 });
    // Run 1: 102 000 tokens before the second call (under), 227 000 after it.
    await agentOn(store, [toolTurn("c1", call1), answer("One.", call2)], "claude-sonnet-4", [
      budget,
    ]).invoke(ask("first"), { threadId: "t1" });
    const before = (await store.getBranch("t1", "main"))!.lastSeq;
    const agent = agentOn(store, [answer("never", call3)], "claude-sonnet-4", [budget]);
    const e = await expectError(
      () => agent.invoke(ask("second"), { threadId: "t1" }),
      UsageBudgetExceededError,
      'Usage budget reached on thread "t1" (branch "main"): 227000 tokens used of 200000; node "think" may not call the model',
    );
    expect({ ...e, cause: undefined }).toMatchObject({
      threadId: "t1",
      branchId: "main",
      node: "think",
      usedTokens: 227_000,
      maxTokens: 200_000,
      usedCostUsd: null,
      maxCostUsd: null,
    });
    const snapshot = await agent.getState("t1");
    expect(snapshot.state.finalText).toBe("One.");
    expect((await store.read("t1", "main", { afterSeq: before })).map((x) => x.type)).toEqual([
      "run_started",
      "run_failed",
    ]);
  });

  it("pauses for approval past maxCostUsd; an approved raise is kept in the log (cold resume), a refusal stops", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "nodestep-budget-")), "t.db");
    const budget = () => UsageBudgetMiddleware({ maxCostUsd: 0.5, prices, onExceed: "interrupt" });
    const make = (responses: ScriptedResponse[]) =>
      agentOn(new SqliteStateStore({ path }), responses, "claude-sonnet-4", [budget()]);
    await make([toolTurn("c1", call1), answer("One.", call2)]).invoke(ask("first"), {
      threadId: "t1",
    });
    const paused = await make([answer("never", call3)]).invoke(ask("second"), { threadId: "t1" });
    expect(paused.status).toBe("interrupted");
    expect(paused.interrupts.map((i) => [i.key, i.value])).toEqual([
      [
        `usage-budget:${paused.interrupts[0]!.taskId}`,
        {
          kind: "usage_budget",
          threadId: "t1",
          branchId: "main",
          node: "think",
          usedTokens: 227_000,
          maxTokens: null,
          usedCostUsd: 0.657,
          maxCostUsd: 0.5,
        },
      ],
    ]);
    // Approve with a raise of one dollar, from a new graph on a reopened store.
    const key = paused.interrupts[0]!.key;
    const resumed = await make([answer("Two.", call3)]).invoke(null, {
      threadId: "t1",
      resume: { [key]: { approve: true, addCostUsd: 1 } },
    });
    expect(resumed.status).toBe("completed");
    expect(resumed.state.finalText).toBe("Two.");
    // 1.062 spent of 1.5 now: the next run goes on without asking.
    const third = await make([answer("Three.", { inputTokens: 1_000, outputTokens: 100 })]).invoke(
      ask("third"),
      {
        threadId: "t1",
      },
    );
    expect(third.status).toBe("completed");

    const store = new MemoryStateStore();
    const strict = [UsageBudgetMiddleware({ maxTokens: 1, onExceed: "interrupt" })];
    await agentOn(store, [answer("One.", call3)], "m", strict).invoke(ask("a"), { threadId: "t2" });
    const again = agentOn(store, [answer("never", call3)], "m", strict);
    const p = await again.invoke(ask("b"), { threadId: "t2" });
    await expectError(
      () => again.invoke(null, { threadId: "t2", resume: { [p.interrupts[0]!.key]: false } }),
      UsageBudgetExceededError,
      'Usage budget reached on thread "t2" (branch "main"): 131000 tokens used of 1; the model call of node "think" was declined',
    );
    // `true` approves this one call only: the next run asks again.
    await agentOn(store, [answer("One.", call3)], "m", strict).invoke(ask("a"), { threadId: "t3" });
    const p2 = await agentOn(store, [], "m", strict).invoke(ask("b"), { threadId: "t3" });
    const ok = await agentOn(store, [answer("Ok.", call3)], "m", strict).invoke(null, {
      threadId: "t3",
      resume: { [p2.interrupts[0]!.key]: true },
    });
    expect(ok.state.finalText).toBe("Ok.");
    const p3 = await agentOn(store, [], "m", strict).invoke(ask("c"), { threadId: "t3" });
    expect(p3.interrupts.map((i) => (i.value as { usedTokens: number }).usedTokens)).toEqual([
      262_000,
    ]);
  });

  it("refuses bad options, and a run without a thread", async () => {
    await expectError(
      () => UsageBudgetMiddleware({}),
      ValueError,
      "UsageBudgetMiddleware: give maxTokens, maxCostUsd or both",
    );
    await expectError(
      () => UsageBudgetMiddleware({ maxCostUsd: 1 }),
      ValueError,
      "UsageBudgetMiddleware: maxCostUsd needs prices (a price table by model)",
    );
    await expectError(
      () => UsageBudgetMiddleware({ maxTokens: -1 }),
      ValueError,
      "UsageBudgetMiddleware: maxTokens must be a number ≥ 0, got -1",
    );
    const agent = buildReactAgent(new ScriptedChat(["x"]), {
      tools: [],
      middleware: [UsageBudgetMiddleware({ maxTokens: 10 })],
    });
    const e = await caught(() => agent.invoke(ask("hi")));
    expect(e).toBeInstanceOf(GraphConfigError);
    expect(e.message).toBe(
      'UsageBudgetMiddleware (node "think" of graph "agent"): the run needs a threadId and a stateStore, where the totals are read from',
    );
  });
});
