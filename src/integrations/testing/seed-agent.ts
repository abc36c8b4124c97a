/**
 * The seed order agent run end to end on a chat integration (vitest), streaming and not.
 * Internal test helper of the built-in integrations.
 *
 * @module
 */
import { expect, it } from "vitest";
import { z } from "zod";
import type { Chat } from "../../chat/types.js";
import { buildReactAgent, runAgent, tool } from "../../index.js";
import type { ConformanceScenario } from "./conformance.js";

/** The two model turns of the seed example: call `get_order_status` for A-1001, then answer. */
export const SEED_TURNS: readonly ConformanceScenario[] = [
  {
    kind: "toolCalls",
    calls: [{ id: "call_1", name: "get_order_status", argumentsJson: '{"orderId":"A-1001"}' }],
  },
  { kind: "text", content: "Order A-1001 has shipped." },
];

/**
 * Tests that run the seed order agent (`get_order_status` → "Order A-1001 has shipped.") with
 * `stream: false` and `stream: true`. `makeChat(turns)` returns a chat whose next calls answer
 * `turns` in order; `check()` then asserts what reached the provider (for example that the
 * second request carried the tool result `{"result":"shipped"}`).
 */
export function itRunsSeedOrderAgent(
  makeChat: (turns: readonly ConformanceScenario[]) => Chat | Promise<Chat>,
  check: (streamed: boolean) => void,
): void {
  for (const streamed of [false, true]) {
    it(`runs the seed order agent end to end (${streamed ? "streaming" : "not streaming"})`, async () => {
      const calls: string[] = [];
      const getOrderStatus = tool(
        ({ orderId }: { orderId: string }) => {
          calls.push(orderId);
          return orderId === "A-1001" ? "shipped" : "unknown";
        },
        {
          name: "get_order_status",
          description: "Look up the shipping status of an order.",
          input: z.object({ orderId: z.string() }),
          output: z.string(),
        },
      );
      const chat = await makeChat(SEED_TURNS);
      const agent = buildReactAgent(chat, {
        tools: [getOrderStatus],
        systemPrompt: "You answer questions about orders.",
        stream: streamed,
      });
      expect(await runAgent(agent, "Where is order A-1001?")).toBe("Order A-1001 has shipped.");
      expect(calls).toEqual(["A-1001"]);
      check(streamed);
    });
  }
}
