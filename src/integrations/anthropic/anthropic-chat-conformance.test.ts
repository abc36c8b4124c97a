// AnthropicChat through the chat conformance suite and the seed order agent.
// Shared setup: anthropic-chat.fixture.ts.
import { describe, expect } from "vitest";
import { describeChatConformance } from "../testing/conformance.js";
import { itRunsSeedOrderAgent } from "../testing/seed-agent.js";
import {
  makeChat,
  scenarioResponder,
  server,
  setUpReplayServer,
} from "./anthropic-chat.fixture.js";

setUpReplayServer();

describeChatConformance(
  "AnthropicChat",
  (scenario) => {
    server.reset();
    server.fallback = scenarioResponder(scenario);
    return makeChat({ maxRetries: 1 });
  },
  { parts: { provider: "anthropic", lastRequestBody: () => server.requests.at(-1)?.json } },
);

// ---- The seed order agent ------------------------------------------------------------------

describe("AnthropicChat with the seed order agent", () => {
  itRunsSeedOrderAgent(
    (turns) => {
      server.reset();
      server.enqueue(...turns.map(scenarioResponder));
      return makeChat();
    },
    (streamed) => {
      expect(server.requests).toHaveLength(2);
      const second = server.requests[1]!.json as Record<string, unknown>;
      expect(second.stream).toBe(streamed);
      expect(second.system).toBe("You answer questions about orders.");
      expect(second.messages).toEqual([
        { role: "user", content: "Where is order A-1001?" },
        {
          role: "assistant",
          content: [
            {
              type: "tool_use",
              id: "call_1",
              name: "get_order_status",
              input: { orderId: "A-1001" },
            },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "call_1", content: '{"result":"shipped"}' },
          ],
        },
      ]);
    },
  );
});
