/**
 * An AI SDK model as a nodestep chat, behind a fallback: the first model is rate-limited, the
 * AI SDK model (the SDK's own mock, no network) answers, and the AIMessage records why.
 * Run: node --import tsx examples/models/fallback.ts
 */
import { MockLanguageModelV4 } from "ai/test";
import {
  buildReactAgent,
  HumanMessage,
  MemoryStateStore,
  ModelProviderError,
  ScriptedChat,
} from "nodestep";
import { fromAISdk } from "nodestep/ai-sdk";
import { fallbackChat } from "nodestep/chat";

const gemini = fromAISdk(
  new MockLanguageModelV4({
    provider: "google.generative-ai",
    modelId: "gemini-2.5-flash",
    doGenerate: async () => ({
      content: [{ type: "text", text: "Order A-1001 has shipped." }],
      finishReason: { unified: "stop", raw: "STOP" },
      usage: {
        inputTokens: { total: 12, noCache: 12, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 6, text: 6, reasoning: 0 },
      },
      warnings: [],
    }),
  }),
);
const limited = new ScriptedChat(
  [
    new ModelProviderError("Rate limit reached", {
      provider: "openai",
      status: 429,
      retryable: true,
    }),
  ],
  { model: "gpt-4o-mini" },
);

const agent = buildReactAgent(fallbackChat([limited, gemini]), {
  tools: [],
  stateStore: new MemoryStateStore(),
});
const result = await agent.invoke(
  { messages: [HumanMessage({ content: "Where is order A-1001?" })] },
  { threadId: "t1" },
);
const answer = result.state.messages.at(-1);
console.log(answer?.content);
if (answer?.type === "ai") {
  console.log(JSON.stringify(answer.usage));
  console.log(JSON.stringify(answer.responseMetadata));
}
