/**
 * Tool arguments from a model nested deeper than MAX_JSON_DEPTH go to the tool policy as
 * invalid arguments (issue 13, item 11): the tool is not called, and nothing deep reaches the
 * state; "raise" fails the run with ToolExecutionError, "return" tells the model.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { HumanMessage } from "../chat/messages.js";
import { ScriptedChat } from "../chat/scripted-chat.js";
import { ToolCall } from "../chat/tool-call.js";
import { ToolExecutionError } from "../errors/index.js";
import { MemoryStateStore } from "../stores/index.js";
import { tool } from "../tools/index.js";
import { buildReactAgent } from "./react-agent.js";

const deep = `{"a":${"[".repeat(600)}${"]".repeat(600)}}`;
const reason = `Tool arguments nest deeper than 512 levels (at ${`arguments.a${"[0]".repeat(600)}`.slice(0, 60)}…)`;

function agentWith(toolErrors: "raise" | "return", count: { calls: number }) {
  const lookup = tool(
    () => {
      count.calls++;
      return "found";
    },
    { name: "lookup", description: "Look up.", input: z.object({ a: z.unknown() }) },
  );
  return buildReactAgent(
    new ScriptedChat([
      { content: null, toolCalls: [ToolCall.fromArgumentsJson("c1", "lookup", deep)] },
      "Sorry, I could not look that up.",
    ]),
    { tools: [lookup], stateStore: new MemoryStateStore(), toolErrors },
  );
}

describe("deep tool arguments from a model", () => {
  it('"raise": the run fails with ToolExecutionError naming the call; the tool never runs', async () => {
    const count = { calls: 0 };
    const agent = agentWith("raise", count);
    const run = agent.invoke({ messages: [HumanMessage({ content: "Go" })] }, { threadId: "d1" });
    await expect(run).rejects.toThrow(ToolExecutionError);
    await expect(run).rejects.toThrow(`Invalid arguments for tool "lookup": ${reason} (call "c1")`);
    expect(count.calls).toBe(0);
  });

  it('"return": the model is told and answers; the stored call holds no deep arguments', async () => {
    const count = { calls: 0 };
    const agent = agentWith("return", count);
    const { state } = await agent.invoke(
      { messages: [HumanMessage({ content: "Go" })] },
      { threadId: "d2" },
    );
    expect(count.calls).toBe(0);
    const messages = state.messages as unknown as {
      type: string;
      content: unknown;
      toolCalls?: { arguments: unknown; argumentsError: string | null }[];
    }[];
    expect(messages.map((m) => m.type)).toEqual(["human", "ai", "tool", "ai"]);
    expect(messages[1]!.toolCalls).toEqual([
      { id: "c1", name: "lookup", arguments: {}, argumentsError: reason },
    ]);
    expect(messages[2]!.content).toBe(
      `Tool error: ToolExecutionError: Invalid arguments for tool "lookup": ${reason} (call "c1")`,
    );
    expect(messages[3]!.content).toBe("Sorry, I could not look that up.");
  });
});
