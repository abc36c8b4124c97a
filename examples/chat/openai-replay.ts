// OpenAIChat with no network and no key: a local server replays what the Chat Completions API
// streams for a tool call, and the integration's SDK does the HTTP.
import { assembleStream, ChatRequest, HumanMessage } from "nodestep/chat";
import { OpenAIChat } from "nodestep/openai";
import { ReplayServer, sseEvents } from "nodestep/testing";

const chunk = (delta: object, finish_reason: string | null = null) => ({
  id: "chatcmpl-1",
  object: "chat.completion.chunk",
  created: 1741569952,
  model: "gpt-4o-mini-2024-07-18",
  choices: [{ index: 0, delta, logprobs: null, finish_reason }],
  usage: null,
});

const server = await ReplayServer.start();
server.enqueue({
  headers: { "content-type": "text/event-stream" },
  body: [
    ...sseEvents([
      { data: chunk({ role: "assistant", content: null }) },
      {
        data: chunk({
          tool_calls: [
            {
              index: 0,
              id: "call_1",
              type: "function",
              function: { name: "get_order_status", arguments: "" },
            },
          ],
        }),
      },
      { data: chunk({ tool_calls: [{ index: 0, function: { arguments: '{"orderId"' } }] }) },
      { data: chunk({ tool_calls: [{ index: 0, function: { arguments: ':"A-1001"}' } }] }) },
      { data: chunk({}, "tool_calls") },
    ]),
    "data: [DONE]\n\n",
  ],
});

const chat = new OpenAIChat({
  model: "gpt-4o-mini",
  apiKey: "sk-local",
  baseURL: `${server.url}/v1`,
});
const response = await assembleStream(
  chat.stream(ChatRequest({ messages: [HumanMessage({ content: "Where is order A-1001?" })] })),
);
console.log(response.finishReason, response.toolCalls[0]?.name, response.toolCalls[0]?.arguments);
const sent = server.requests[0]?.json as { stream_options?: object } | undefined;
console.log("sent:", JSON.stringify(sent?.stream_options));
await server.close();
