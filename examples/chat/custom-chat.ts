// A chat integration of your own: any object with `model`, `complete` and `stream` is a Chat.
// This one is a rule-based "model" with no network: it looks up orders, then answers.

import { RunCancelledError } from "nodestep";
import {
  AIMessage,
  assembleStream,
  type Chat,
  type ChatCallOptions,
  ChatRequest,
  type ChatResponse,
  type ChatStreamChunk,
  HumanMessage,
  SystemMessage,
  ToolCall,
  ToolMessage,
  textOf,
} from "nodestep/chat";

class OrderDeskChat implements Chat {
  readonly model = "order-desk-1";

  async complete(request: ChatRequest, options: ChatCallOptions = {}): Promise<ChatResponse> {
    if (options.signal?.aborted) throw new RunCancelledError("The model call was cancelled");
    const last = request.messages.at(-1);
    // After a tool result: answer with it.
    if (last?.type === "tool") {
      const { result } = JSON.parse(textOf(last.content) ?? "{}") as { result?: string };
      return this.#answer({ content: `Order A-1001 has ${result}.`, finishReason: "stop" });
    }
    // A question about an order, and a tool to look it up: call the tool.
    const orderId = textOf(last?.content)?.match(/[A-Z]-\d{4}/)?.[0];
    if (orderId && request.tools.some((t) => t.name === "get_order_status")) {
      return this.#answer({
        toolCalls: [
          ToolCall.fromArgumentsJson("call_1", "get_order_status", JSON.stringify({ orderId })),
        ],
        finishReason: "tool_calls",
      });
    }
    return this.#answer({ content: "Which order do you mean?", finishReason: "stop" });
  }

  async *stream(
    request: ChatRequest,
    options: ChatCallOptions = {},
  ): AsyncGenerator<ChatStreamChunk> {
    const response = await this.complete(request, options);
    for (const word of textOf(response.content)?.split(/(?<= )/) ?? [])
      yield { contentDelta: word };
    for (const [index, call] of response.toolCalls.entries()) {
      // Argument text may come in pieces; pieces with the same index form one call.
      const text = ToolCall.argumentsJson(call);
      yield { toolCallDelta: { index, id: call.id, name: call.name, arguments: text.slice(0, 5) } };
      yield { toolCallDelta: { index, arguments: text.slice(5) } };
    }
    yield { finishReason: response.finishReason, usage: response.usage, model: this.model };
  }

  #answer(part: Partial<ChatResponse>): ChatResponse {
    return {
      content: null,
      refusal: null,
      toolCalls: [],
      reasoning: [],
      finishReason: null,
      usage: { inputTokens: 0, outputTokens: 0 },
      model: this.model,
      raw: null,
      ...part,
    };
  }
}

const chat = new OrderDeskChat();
const tools = [
  {
    name: "get_order_status",
    description: "Look up the shipping status of an order.",
    inputSchema: { type: "object", properties: { orderId: { type: "string" } } },
  },
];
const question = ChatRequest({
  messages: [
    SystemMessage({ content: "You answer questions about orders." }),
    HumanMessage({ content: "Where is order A-1001?" }),
  ],
  tools,
});

const first = await chat.complete(question);
console.log(first.finishReason, JSON.stringify(first.toolCalls));

const streamed = await assembleStream(chat.stream(question));
console.log("streamed:", streamed.toolCalls[0]?.arguments);

const followUp = ChatRequest({
  messages: [
    ...question.messages,
    AIMessage({ toolCalls: first.toolCalls }),
    ToolMessage({
      content: '{"result":"shipped"}',
      toolCallId: "call_1",
      name: "get_order_status",
    }),
  ],
  tools,
});
console.log((await chat.complete(followUp)).content);
