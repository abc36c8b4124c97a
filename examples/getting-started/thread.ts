import { buildReactAgent, runAgent, ScriptedChat, textOf } from "nodestep";
import type { ChatRequest } from "nodestep/chat";
import { SqliteStateStore } from "nodestep/sqlite";

// A scripted model that says how many messages it was sent: the whole thread, each time.
const reply = (request: ChatRequest) => `I have read ${request.messages.length} message(s).`;

const store = new SqliteStateStore({ path: "threads.db" });
const agent = buildReactAgent(new ScriptedChat([reply, reply]), { tools: [], stateStore: store });

console.log(await runAgent(agent, "Hello!", { threadId: "chat-1" }));
console.log(await runAgent(agent, "How are you?", { threadId: "chat-1" }));

const snapshot = await agent.getState("chat-1");
for (const m of snapshot.state.messages) console.log(`${m.type}: ${textOf(m.content)}`);
await store.close();
