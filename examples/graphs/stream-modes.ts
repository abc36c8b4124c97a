// The tasks, checkpoints, debug and messages stream modes, on a graph with a subgraph and on an agent.

import {
  buildReactAgent,
  type DebugEventData,
  defineState,
  END,
  Graph,
  HumanMessage,
  isMessagesEvent,
  MemoryStateStore,
  node,
  reducer,
  ScriptedChat,
  START,
  subgraph,
  textOf,
  tool,
} from "nodestep";
import { z } from "zod";

const State = defineState({
  log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
});
type S = typeof State.State;

// A child graph (outline → write) used as the node "draft" of the parent (draft → publish).
const outline = node(() => ({ log: ["outline"] }), { name: "outline" });
const write = node(() => ({ log: ["write"] }), { name: "write" });
const child = new Graph(State, { name: "drafting" }).flow(
  START.to(outline),
  outline.to(write),
  write.to(END),
);
const draft = subgraph("draft", child, {
  stateIn: () => ({}),
  stateOut: (c: S) => ({ log: c.log }),
  childThread: "stable",
});
const publish = node(() => ({ log: ["publish"] }), { name: "publish" });
const graph = new Graph(State, { stateStore: new MemoryStateStore() }).flow(
  START.to(draft),
  draft.to(publish),
  publish.to(END),
);

// "tasks": each task's start and result; "checkpoints": the position at each commit.
for await (const e of graph.stream({}, { threadId: "doc", modes: ["tasks", "checkpoints"] })) {
  const where = `${e.mode} ${e.step} ${e.node ?? "-"} ${e.taskId ?? "-"}`;
  if (e.mode === "tasks")
    console.log(
      where,
      e.data.kind === "start" ? "start" : `result ${JSON.stringify(e.data.update)}`,
    );
  if (e.mode === "checkpoints")
    console.log(where, `${e.data.eventId} next=[${e.data.next}] log=[${e.data.values.log}]`);
}

// "debug": the same events, each wrapped with its type, step and time.
const types: string[] = [];
for await (const e of graph.stream({}, { threadId: "doc2", modes: ["debug"] })) {
  const d = e.data as DebugEventData;
  types.push(`${d.type}@${d.step}`);
}
console.log("debug", types.join(" "));

// "messages": each complete message a node writes (tokens of a streamed call are "tokens").
const lookup = tool(({ city }) => `sunny in ${city}`, {
  name: "weather",
  description: "The weather of a city.",
  input: z.object({ city: z.string() }),
  output: z.string(),
});
const chat = new ScriptedChat([
  { toolCalls: [{ id: "call_1", name: "weather", arguments: { city: "Lisbon" } }] },
  "It is sunny in Lisbon.",
]);
const agent = buildReactAgent(chat, { tools: [lookup] });
const input = { messages: [HumanMessage({ content: "Weather in Lisbon?" })] };
for await (const e of agent.stream(input, { modes: ["messages"] })) {
  if (isMessagesEvent(e))
    console.log("messages", e.node, e.data.type, textOf(e.data.content) ?? "(tool calls)");
}
