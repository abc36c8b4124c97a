import { buildReactAgent, runAgent, ScriptedChat } from "nodestep";
import type { ChatRequest } from "nodestep/chat";
import { SqliteStateStore } from "nodestep/sqlite";

// Another process: a new store object, a new agent, the same file and thread id.
const reply = (request: ChatRequest) => `I have read ${request.messages.length} message(s).`;

const store = new SqliteStateStore({ path: "threads.db" });
const agent = buildReactAgent(new ScriptedChat([reply]), { tools: [], stateStore: store });

console.log(await runAgent(agent, "Still there?", { threadId: "chat-1" }));
const { state, status } = await agent.getState("chat-1");
console.log(`${state.messages.length} messages, last run ${status}`);
await store.close();
