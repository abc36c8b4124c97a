// OpenAIChat through the chat conformance suite and the seed order agent.
// Shared setup: openai-chat.fixture.ts.
import { describe, expect } from "vitest";
import { describeChatConformance } from "../testing/conformance.js";
import { itRunsSeedOrderAgent } from "../testing/seed-agent.js";
import { makeChat, scenarioResponder, server, setUpReplayServer } from "./openai-chat.fixture.js";

setUpReplayServer();

describeChatConformance(
  "OpenAIChat",
  (scenario) => {
    server.reset();
    server.fallback = scenarioResponder(scenario);
    return makeChat({ maxRetries: 1 });
  },
  {
    parts: {
      provider: "openai",
      lastRequestBody: () => server.requests.at(-1)?.json,
      unsupported: ["toolResultImage"],
      reasoning: "receiveOnly",
    },
  },
);

// ---- The seed order agent ------------------------------------------------------------------

describe("OpenAIChat with the seed order agent", () => {
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
      expect((second.tools as Array<{ function: { name: string } }>)[0]!.function.name).toBe(
        "get_order_status",
      );
      expect(second.messages).toEqual([
        { role: "system", content: "You answer questions about orders." },
        { role: "user", content: "Where is order A-1001?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "call_1",
              type: "function",
              function: { name: "get_order_status", arguments: '{"orderId":"A-1001"}' },
            },
          ],
        },
        { role: "tool", tool_call_id: "call_1", content: '{"result":"shipped"}' },
      ]);
    },
  );
});
