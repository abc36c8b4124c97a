// Three ready middleware on one agent: a model-call limit, a todo list the model keeps, and
// a history trimmed to a budget. Their beforeModel hooks run in list order.

import {
  buildReactAgent,
  HistoryTrimMiddleware,
  HumanMessage,
  MemoryStateStore,
  ModelCallLimitError,
  ModelCallLimitMiddleware,
  ScriptedChat,
  TodoMiddleware,
  todosFromMessages,
} from "nodestep";

const update = (id: string, todo: number, status: string) => ({
  toolCalls: [{ id, name: "update_todo", arguments: { id: todo, status } }],
});
const chat = new ScriptedChat([
  // run 1
  {
    toolCalls: [
      {
        id: "w1",
        name: "write_todos",
        arguments: {
          todos: [{ content: "Find the order", status: "in_progress" }, { content: "Reply" }],
        },
      },
    ],
  },
  {
    toolCalls: [
      { id: "u1", name: "update_todo", arguments: { id: 1, status: "completed" } },
      { id: "u2", name: "update_todo", arguments: { id: 2, status: "in_progress" } },
    ],
  },
  "Your order A-1001 has shipped.",
  // run 2
  "You are welcome.",
  // run 3: the model keeps calling tools
  update("u3", 2, "pending"),
  update("u4", 2, "in_progress"),
  update("u5", 2, "pending"),
  "(never asked)",
]);

const agent = buildReactAgent(chat, {
  tools: [],
  systemPrompt: "You answer questions about orders.",
  stateStore: new MemoryStateStore(),
  middleware: [
    ModelCallLimitMiddleware({ maxModelCalls: 3 }),
    TodoMiddleware({ instructions: "Plan with write_todos." }),
    HistoryTrimMiddleware({ maxMessages: 4 }),
  ],
});
const ask = (content: string) =>
  agent.invoke({ messages: [HumanMessage({ content })] }, { threadId: "t1" });

const first = await ask("Where is A-1001?");
console.log(first.state.finalText);
console.log("the third model call saw:");
for (const m of chat.requests[2]!.messages) {
  console.log(
    `  ${m.type}: ${m.type === "tool" ? m.name : m.type === "ai" ? "(tool calls)" : m.content}`,
  );
}
console.log("todos:", JSON.stringify(todosFromMessages(first.state.messages)));

const second = await ask("Thanks!");
console.log(second.state.finalText);
console.log(
  `sent ${chat.requests[3]!.messages.length} messages; the thread holds ${second.state.messages.length}`,
);

try {
  await ask("Reopen the reply.");
} catch (e) {
  if (e instanceof ModelCallLimitError)
    console.log(`${e.name}: at most ${e.maxModelCalls} calls, refused in "${e.node}"`);
}
console.log(`${chat.requests.length} model calls in all`);
