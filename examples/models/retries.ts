/**
 * Retries as middleware: the model answers after a 503 and a 429 with a Retry-After hint, and a
 * flaky tool succeeds on its third attempt. Each retry is a "custom" stream event.
 * Run: node --import tsx examples/models/retries.ts
 */

import {
  buildReactAgent,
  HumanMessage,
  ModelProviderError,
  ModelRetryMiddleware,
  ScriptedChat,
  ToolRetryMiddleware,
  tool,
} from "nodestep";
import { z } from "zod";

class ServiceDown extends Error {
  override name = "ServiceDown";
}

let lookups = 0;
const lookupOrder = tool(
  ({ orderId }: { orderId: string }) => {
    lookups++;
    if (lookups < 3) throw new ServiceDown("orders service did not answer");
    return { orderId, status: "shipped" };
  },
  {
    name: "lookup_order",
    description: "Look up an order.",
    input: z.object({ orderId: z.string() }),
  },
);

const chat = new ScriptedChat(
  [
    new ModelProviderError("Service unavailable", { provider: "openai", status: 503 }),
    new ModelProviderError("Rate limit reached", {
      provider: "openai",
      status: 429,
      retryAfterMs: 20,
    }),
    {
      content: null,
      toolCalls: [{ id: "c1", name: "lookup_order", arguments: { orderId: "A-1001" } }],
    },
    "Order A-1001 has shipped.",
  ],
  { model: "gpt-4o-mini" },
);

const agent = buildReactAgent(chat, {
  tools: [lookupOrder],
  middleware: [
    // jitter: 0 keeps this example's waits exact; keep the default (0.5) in production.
    ModelRetryMiddleware({ maxAttempts: 4, initialDelayMs: 10, jitter: 0, budgetMs: 5_000 }),
    ToolRetryMiddleware({
      tools: {
        lookup_order: { maxAttempts: 3, initialDelayMs: 5, jitter: 0, retryOn: [ServiceDown] },
      },
    }),
  ],
});

for await (const e of agent.stream(
  { messages: [HumanMessage({ content: "Where is order A-1001?" })] },
  { modes: ["custom", "values"] },
)) {
  if (e.mode === "custom") console.log(JSON.stringify(e.data));
  else if (e.mode === "values" && e.data.finalText) console.log(e.data.finalText);
}
console.log(`model calls: ${chat.requests.length}, tool attempts: ${lookups}`);
