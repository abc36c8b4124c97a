// A refund agent that asks a person before each refund. The model asks for three refunds in
// one turn; the person approves one, lowers the amount of another and rejects the third. The
// thread lives in SQLite, so the answer can come from another process, hours later.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ApprovalMiddleware,
  buildReactAgent,
  RunInterruptedError,
  runAgent,
  ScriptedChat,
  tool,
} from "nodestep";
import { SqliteStateStore } from "nodestep/sqlite";
import { z } from "zod";

const refund = tool(({ orderId, amount }) => `refunded ${amount} EUR on ${orderId}`, {
  name: "refund",
  description: "Refund an order.",
  input: z.object({ orderId: z.string(), amount: z.number() }),
});

const chat = new ScriptedChat([
  {
    toolCalls: [
      { id: "c1", name: "refund", arguments: { orderId: "A-1", amount: 20 } },
      { id: "c2", name: "refund", arguments: { orderId: "A-2", amount: 500 } },
      { id: "c3", name: "refund", arguments: { orderId: "A-3", amount: 900 } },
    ],
  },
  "Refunded A-1 and 50 EUR on A-2; A-3 was refused.",
]);

function refundAgent(store: SqliteStateStore) {
  return buildReactAgent(chat, {
    tools: [refund],
    middleware: [
      ApprovalMiddleware({
        tools: ["refund"],
        question: (_tool, args) => `Refund ${String(args.amount)} EUR on ${String(args.orderId)}?`,
      }),
    ],
    stateStore: store,
  });
}

const dir = mkdtempSync(join(tmpdir(), "refunds-"));
const path = join(dir, "threads.db");

// 1. The run pauses before the refunds, with one interrupt per call.
let store = new SqliteStateStore({ path });
try {
  await runAgent(refundAgent(store), "Refund A-1, A-2 and A-3", { threadId: "ticket-7" });
} catch (e) {
  if (!(e instanceof RunInterruptedError)) throw e;
  for (const i of e.interrupts) console.log(i.key, (i.value as { question: string }).question);
}
await store.close();

// 2. Later, maybe in another process: answer each call and resume the thread.
store = new SqliteStateStore({ path });
const agent = refundAgent(store);
const done = await agent.invoke(null, {
  threadId: "ticket-7",
  resume: {
    "1:0#c1": "yes",
    "1:0#c2": { approved: true, arguments: { orderId: "A-2", amount: 50 } },
    "1:0#c3": { approved: false, reason: "over the 100 EUR limit" },
  },
});
for (const m of done.state.messages) {
  if (m.type === "tool") console.log(m.toolCallId, m.content, JSON.stringify(m.arguments));
}
console.log(done.status, done.state.finalText);
await store.close();
rmSync(dir, { recursive: true });
