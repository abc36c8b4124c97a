// The back end of the useChat page: a refund agent on a scripted model that streams its words
// slowly (so a page reload lands in the middle of an answer), with the refund tool behind an
// approval. Served by `nodestep serve examples/use-chat/agent.ts#buildAgent` (README.md).
import { ApprovalMiddleware, buildReactAgent, ScriptedChat, type StateStore, tool } from "nodestep";
import type { ChatCallOptions, ChatRequest, ChatStreamChunk, Message } from "nodestep/chat";
import { z } from "zod";

/** A ScriptedChat whose stream waits `delayMs` before each chunk, as a real model's would. */
class SlowScriptedChat extends ScriptedChat {
  constructor(
    responses: ConstructorParameters<typeof ScriptedChat>[0],
    readonly delayMs: number,
  ) {
    super(responses);
  }

  override async *stream(
    request: ChatRequest,
    options: ChatCallOptions = {},
  ): AsyncGenerator<ChatStreamChunk> {
    for await (const chunk of super.stream(request, options)) {
      await new Promise((resolve) => setTimeout(resolve, this.delayMs));
      yield chunk;
    }
  }
}

const last = (messages: readonly Message[]) => messages[messages.length - 1];

/**
 * Every model call of every thread: a user message that names an order (`A-1`) gets a short
 * answer and a `refund` call; after the tool's message, the answer that closes the turn.
 */
function answer(request: ChatRequest) {
  const m = last(request.messages);
  if (m?.type === "tool") {
    const said = String(m.content);
    return said.startsWith("Tool call denied") || said.startsWith("Tool error")
      ? "The refund was not made."
      : "Done: the refund is on its way back to your card, and it should show up there within three to five working days.";
  }
  const text = typeof m?.content === "string" ? m.content : "";
  const orderId = /[A-Z]-\d+/.exec(text)?.[0];
  if (!orderId) return "Which order should I refund? Give its number, such as A-1.";
  return {
    content: `Let me look at order ${orderId} for you.`,
    toolCalls: [{ id: `call-${orderId}`, name: "refund", arguments: { orderId } }],
  };
}

const refund = tool(({ orderId }) => ({ orderId, refunded: true, amount: "25.00 EUR" }), {
  name: "refund",
  description: "Refund an order.",
  input: z.object({ orderId: z.string() }),
});

/**
 * The graph `nodestep serve` loads: `--store` gives the store. `USE_CHAT_DELAY_MS` (default
 * 120) is the wait before each streamed chunk, in ms.
 */
export function buildAgent({ stateStore }: { stateStore: StateStore }) {
  const delayMs = Number(process.env.USE_CHAT_DELAY_MS ?? 120);
  return buildReactAgent(new SlowScriptedChat(Array(10_000).fill(answer), delayMs), {
    name: "refund-chat",
    tools: [refund],
    middleware: [
      ApprovalMiddleware({
        tools: ["refund"],
        question: (_tool, args) => `Refund order ${String(args.orderId)}?`,
      }),
    ],
    stateStore,
    stream: true,
  });
}
