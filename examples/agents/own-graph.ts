// Your own agent graph: modelNode and toolRunner joined by your own route, on your own state.

import {
  defineState,
  END,
  Graph,
  HumanMessage,
  messagesField,
  modelNode,
  ScriptedChat,
  START,
  tool,
  toolRunner,
  when,
} from "nodestep";
import { ToolCallSchema } from "nodestep/chat";
import { z } from "zod";

const Support = defineState({
  messages: messagesField(),
  toolCalls: z.array(ToolCallSchema).default([]),
  finalText: z.string().nullable().default(null),
});
type Support = typeof Support.State;

class LookupError extends Error {
  override name = "LookupError";
}

const lookupOrder = tool(
  ({ orderId }): string => {
    throw new LookupError(`no order ${orderId}`);
  },
  {
    name: "lookup_order",
    description: "Find an order by id.",
    input: z.object({ orderId: z.string() }),
  },
);

const chat = new ScriptedChat([
  { toolCalls: [{ id: "call_1", name: "lookup_order", arguments: { orderId: "B-7" } }] },
  "I could not find order B-7. Please check the number.",
]);
const think = modelNode("think", { chat, tools: [lookupOrder] });
const act = toolRunner("act", { tools: [lookupOrder], toolErrors: "return" });

const hasToolCalls = (state: Support) => state.toolCalls.length > 0;

const graph = new Graph(Support).flow(
  START.to(think),
  think.to(when(hasToolCalls, act, { otherwise: END })),
  act.to(think),
);

const result = await graph.invoke({ messages: [HumanMessage({ content: "Where is B-7?" })] });
console.log(result.state.messages[2]!.content);
console.log(result.state.finalText);
