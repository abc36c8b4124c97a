/**
 * An agent learns a fact about a user on one thread and uses it on another: `memoryTools`
 * write it to a SQLite memory store (in the same file as the threads), and
 * `MemoryRecallMiddleware` puts it into the model's request on the next conversation.
 * The model is a `ScriptedChat`, so the example runs offline; its second answer is read from
 * the request, to show what the model was given.
 *
 * Run: node --import tsx examples/memory/remember-across-threads.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildReactAgent, MemoryRecallMiddleware, memoryTools } from "nodestep";
import { type ChatRequest, HumanMessage, ScriptedChat, textOf } from "nodestep/chat";
import { SqliteMemoryStore, SqliteStateStore } from "nodestep/sqlite";
import { HashEmbeddings } from "nodestep/testing";

type Ctx = { userId: string };
const dir = mkdtempSync(join(tmpdir(), "nodestep-memory-"));
const path = join(dir, "app.db");
const embeddings = new HashEmbeddings({ dimensions: 64 });

/** A new agent on new stores, as a new process would make (the file is the only thing kept). */
function agent(chat: ScriptedChat) {
  const stateStore = new SqliteStateStore({ path });
  const memoryStore = new SqliteMemoryStore({
    path,
    index: { embeddings, dimensions: 64, fields: ["content"] },
  });
  const namespace = (userId: string) => ["users", userId, "memories"];
  const graph = buildReactAgent(chat, {
    stateStore,
    memoryStore,
    tools: memoryTools<Ctx>({ namespace: (ctx) => namespace(ctx.context.userId) }),
    middleware: [
      MemoryRecallMiddleware({
        namespace: (ctx) => namespace((ctx.node.context as Ctx).userId),
        minScore: 0.1,
      }),
    ],
  });
  return { graph, close: () => Promise.all([stateStore.close(), memoryStore.close()]) };
}

const memoriesOf = (request: ChatRequest): string =>
  request.messages
    .map((m) => (m.type === "system" ? textOf(m.content) : null))
    .find((text) => text?.startsWith("Relevant memories")) ?? "(no memories)";

// Thread 1: the user mentions a preference; the model stores it.
const first = agent(
  new ScriptedChat([
    {
      toolCalls: [
        {
          id: "call_1",
          name: "remember",
          arguments: { content: "The user drinks green tea, never coffee." },
        },
      ],
    },
    "Noted: green tea.",
  ]),
);
const r1 = await first.graph.invoke(
  { messages: [HumanMessage({ content: "I only drink green tea, by the way." })] },
  { threadId: "thread-1", context: { userId: "u-42" } },
);
console.log("thread-1:", r1.state.messages.at(-1)?.content);
console.log("tool result:", r1.state.messages.at(-2)?.content);
await first.close();

// Thread 2, later: the middleware recalls the fact for the same user, not for another one.
const answer = (request: ChatRequest) =>
  memoriesOf(request).includes("green tea") ? "How about a green tea?" : "Coffee?";
const chat = new ScriptedChat([answer, answer]);
const second = agent(chat);
for (const userId of ["u-42", "u-7"]) {
  const r = await second.graph.invoke(
    { messages: [HumanMessage({ content: "What should I drink with breakfast, tea or coffee?" })] },
    { threadId: `thread-2-${userId}`, context: { userId } },
  );
  console.log(`thread-2 ${userId}:`, r.state.messages.at(-1)?.content);
}
console.log("model saw for u-42:", JSON.stringify(memoriesOf(chat.requests[0]!)));
console.log("model saw for u-7:", JSON.stringify(memoriesOf(chat.requests[1]!)));
await second.close();
rmSync(dir, { recursive: true, force: true });
