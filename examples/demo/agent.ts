/**
 * The demo's order-support agent, without side effects: `buildDemoAgent({ stateStore })`.
 *
 * Used by `main.ts` (the terminal demo) and by the studio (with the scripted model's prices,
 * so the Metrics tab shows a cost):
 *   npx nodestep serve examples/demo/agent.ts#buildDemoAgent --prices examples/demo/prices.json
 */
import { buildReactAgent, ScriptedChat, type StateStore } from "nodestep";
import type { Chat } from "nodestep/chat";
import { PLANNER_MODEL, plannerScript } from "./planner.js";
import { loadShop, type Shop, shopTools } from "./tools.js";

/** The system prompt of the demo agent. */
export const SYSTEM_PROMPT = [
  "You are the order-support assistant of a small online tea and coffee shop.",
  "Use the tools to look up orders, shipping and stock; never guess. Order ids look like A-1001.",
  "When an order is still processing, check the stock of its items to explain the wait.",
  "Answer in one to three short sentences.",
].join(" ");

/**
 * The demo agent on `stateStore`, and the shop its tools read as the run's `context`.
 * @param options.chat - the model; default the scripted planner (no network).
 */
export function buildDemoAgent(options: { stateStore: StateStore | null; chat?: Chat }): {
  graph: ReturnType<typeof buildReactAgent>;
  context: Shop;
} {
  const graph = buildReactAgent(
    options.chat ?? new ScriptedChat(plannerScript(100_000), { model: PLANNER_MODEL }),
    {
      tools: shopTools,
      systemPrompt: SYSTEM_PROMPT,
      stream: true,
      toolErrors: "return",
      stateStore: options.stateStore,
    },
  );
  return { graph, context: loadShop() };
}
