/**
 * A run's `end` event has one shape wherever the run ran (`runEndData`,
 * src/middleware/run-end-data.ts): a run in the server's process, the raw stream of a run on a
 * worker (as Redis holds it), and that run as a server with a queue streams it (the server's
 * prices in its `threadUsage`). On the machine's Redis and PostgreSQL (a key prefix and schema
 * of this test, removed after).
 */
import { afterEach, expect, it } from "vitest";
import { buildReactAgent } from "../../agents/react-agent.js";
import { ScriptedChat } from "../../chat/scripted-chat.js";
import { createServer } from "../../server/index.js";
import type { QueuedRunEvent } from "../../server/run-queue.js";
import { PostgresStateStore } from "../postgres/index.js";
import { BullMQRunQueue, runRunWorker } from "./index.js";
import { isolation, PG_URL, parseSse, REDIS, waitFor } from "./sse.fixture.js";

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const prices = { m1: { inputPerMillion: 1, outputPerMillion: 2 } };

/** The agent: each run one answer, "Hi.", of model m1 with 10 input and 2 output tokens. */
const agent = (stateStore: PostgresStateStore) =>
  buildReactAgent(
    new ScriptedChat(
      Array.from({ length: 3 }, () => ({
        content: "Hi.",
        usage: { inputTokens: 10, outputTokens: 2 },
      })),
      { model: "m1" },
    ),
    { name: "shape", tools: [], stateStore },
  );

/** The message ids are random: `<id>` in their place. */
function withoutIds(end: unknown): unknown {
  const e = structuredClone(end) as { state: { messages: { id: string }[] } };
  for (const m of e.state.messages) m.id = "<id>";
  return e;
}

const totals = {
  inputTokens: 10,
  outputTokens: 2,
  totalTokens: 12,
  cachedInputTokens: 0,
  reasoningTokens: 0,
  calls: 1,
};

/** The end data expected of the run on `threadId`, with the usage's `cost`. */
const expected = (threadId: string, cost: unknown) => ({
  threadId,
  branchId: "main",
  status: "completed",
  interrupts: [],
  lastEventId: `${threadId}/main/3`,
  state: {
    messages: [
      { type: "human", id: "<id>", content: "hi" },
      {
        type: "ai",
        id: "<id>",
        content: "Hi.",
        refusal: null,
        toolCalls: [],
        reasoning: [],
        finishReason: "stop",
        usage: { inputTokens: 10, outputTokens: 2 },
        responseMetadata: { model: "m1" },
      },
    ],
    toolCalls: [],
    finalText: "Hi.",
    finalOutput: null,
  },
  threadUsage: { usage: totals, byModel: { m1: totals }, cost },
});

async function streamEnd(app: ReturnType<typeof createServer>, threadId: string) {
  const res = await app.fetch(
    new Request(`http://127.0.0.1/api/threads/${threadId}/runs/stream`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: "hi" }),
    }),
  );
  if (res.status !== 200) throw new Error(await res.text());
  const events = parseSse(await res.text());
  expect(events.at(-1)!.event).toBe("end");
  return events.at(-1)!.data;
}

it("a run's end event has the same JSON shape on the server, on a worker, and through a server with a queue", async () => {
  const iso = isolation("endshape");
  closers.push(() => iso.cleanup());
  const store = new PostgresStateStore({ connectionString: PG_URL, schema: iso.schema });
  closers.push(() => store.close());

  // In the server's process.
  const local = createServer({ graph: agent(store), allowedHosts: null });
  expect(withoutIds(await streamEnd(local, "t-server"))).toEqual(expected("t-server", null));

  // On a worker: the raw stream, as Redis has it (no prices on a worker: cost null).
  const queue = new BullMQRunQueue({ connection: REDIS, prefix: iso.prefix });
  closers.push(() => queue.close());
  const worker = await runRunWorker({ connection: REDIS, prefix: iso.prefix, graph: agent(store) });
  closers.push(() => worker.close(0));
  await queue.enqueue({
    runId: "run-w",
    graph: "shape",
    threadId: "t-worker",
    branchId: "main",
    detached: true,
    messageId: null,
    input: { messages: [{ type: "human", content: "hi" }] },
    modes: ["updates"],
  });
  const events: QueuedRunEvent[] = [];
  const stop = queue.follow("run-w", 0, (batch) => events.push(...batch));
  closers.push(async () => stop());
  await waitFor("the worker's run to end", () => events.some((e) => e.event === "end"));
  expect(withoutIds(events.at(-1)!.data)).toEqual(expected("t-worker", null));

  // Through a server with a queue: the worker's end, with the server's priced threadUsage.
  const queued = createServer({ graph: agent(store), runQueue: queue, prices, allowedHosts: null });
  // 10 × 1 / 1e6 + 2 × 2 / 1e6
  const cost = { usd: 0.000014, byModel: { m1: 0.000014 }, unpriced: [] };
  expect(withoutIds(await streamEnd(queued, "t-queued"))).toEqual(expected("t-queued", cost));
});
