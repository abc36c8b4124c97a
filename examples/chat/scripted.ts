// ScriptedChat: a chat model for tests that answers from a script and records every request.
import { assembleStream, ChatRequest, HumanMessage, ScriptedChat } from "nodestep/chat";

const chat = new ScriptedChat([
  { toolCalls: [{ id: "call_1", name: "get_order_status", arguments: { orderId: "A-1001" } }] },
  "Order A-1001 has shipped.",
  (request) => `You sent ${request.messages.length} message(s).`,
]);
const request = ChatRequest({ messages: [HumanMessage({ content: "Where is A-1001?" })] });

const first = await chat.complete(request);
console.log(first.finishReason, JSON.stringify(first.toolCalls));

for await (const chunk of chat.stream(request)) {
  if (chunk.contentDelta) console.log(`chunk: ${JSON.stringify(chunk.contentDelta)}`);
}
console.log((await assembleStream(chat.stream(request))).content);
console.log(chat.requests.length, "requests recorded");

try {
  await chat.complete(request);
} catch (error) {
  console.log(`${(error as Error).name}: ${(error as Error).message}`);
}
