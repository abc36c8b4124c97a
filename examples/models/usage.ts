/**
 * Usage and cost: totals of a run and of a thread read from the event log, priced by a table
 * you supply; a fork's totals; a budget that pauses the thread for approval.
 * Run: node --import tsx examples/models/usage.ts
 */
import {
  buildReactAgent,
  HumanMessage,
  MemoryStateStore,
  type PriceTable,
  ScriptedChat,
  UsageBudgetMiddleware,
  type UsageBudgetRequest,
  UsageLedger,
  withUsage,
} from "nodestep";

// US dollars per million tokens (example figures: use your provider's current prices).
const prices: PriceTable = {
  "gpt-4o-mini": { inputPerMillion: 0.15, outputPerMillion: 0.6, cachedInputPerMillion: 0.075 },
};

const store = new MemoryStateStore();
const chat = new ScriptedChat(
  [
    {
      content: "Hello!",
      usage: { inputTokens: 1_200_000, outputTokens: 50_000, cachedInputTokens: 800_000 },
    },
    { content: "Sure.", usage: { inputTokens: 1_500_000, outputTokens: 200_000 } },
    { content: "Going on.", usage: { inputTokens: 300_000, outputTokens: 10_000 } },
  ],
  { model: "gpt-4o-mini" },
);
const agent = buildReactAgent(chat, {
  tools: [],
  stateStore: store,
  // Pause once the thread has cost 0.40 USD or more.
  middleware: [UsageBudgetMiddleware({ maxCostUsd: 0.4, prices, onExceed: "interrupt" })],
});
const say = (content: string) => ({ messages: [HumanMessage({ content })] });

const first = await withUsage(await agent.invoke(say("Hi"), { threadId: "t1" }), { store, prices });
console.log(`run 1: ${first.usage.usage.totalTokens} tokens, $${first.usage.cost?.usd}`);
const forkPoint = (await agent.history("t1")).at(-1)!.id;

const second = await withUsage(await agent.invoke(say("More"), { threadId: "t1" }), {
  store,
  prices,
});
console.log(`run 2: $${second.usage.cost?.usd}; thread: $${second.threadUsage.cost?.usd}`);

// The thread is past 0.40 USD: the next model call pauses for approval.
const paused = await agent.invoke(say("And more"), { threadId: "t1" });
const question = paused.interrupts[0]!;
const request = question.value as unknown as UsageBudgetRequest;
console.log(`${paused.status}: $${request.usedCostUsd} of $${request.maxCostUsd}`);
// Approve, raising the thread's budget by 0.50 USD (kept in the log).
const resumed = await agent.invoke(null, {
  threadId: "t1",
  resume: { [question.key]: { approve: true, addCostUsd: 0.5 } },
});
console.log(resumed.state.finalText);

// Totals read cold from the store: a new ledger, the main branch and a fork made after run 1.
const ledger = new UsageLedger(store);
const main = await ledger.thread("t1");
console.log(`main: ${main.usage.calls} calls, ${main.usage.totalTokens} tokens`);
const fork = await agent.fork("t1", { eventId: forkPoint, branchId: "retry" });
const onFork = await ledger.thread("t1", fork.branchId);
console.log(`fork: ${onFork.usage.calls} call, ${onFork.usage.totalTokens} tokens`);
