/**
 * Adversarial review of SqliteStateStore's group commit, with the engine on top: 40 ReAct
 * agents (a scripted model, one tool call a turn) talking at once on one store object, two
 * turns each, read back cold by a new store object and a new agent.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { buildReactAgent } from "../../agents/react-agent.js";
import { HumanMessage, type Message } from "../../chat/messages.js";
import { ScriptedChat } from "../../chat/scripted-chat.js";
import { tool } from "../../tools/tool.js";
import { SqliteStateStore } from "./index.js";

const dir = mkdtempSync(join(tmpdir(), "nodestep-sqlite-agents-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const echo = tool(({ text }: { text: string }) => `echo ${text}`, {
  name: "echo",
  description: "Echo the text.",
  input: z.object({ text: z.string() }),
});

/** The model: calls echo with the user's text, then answers with the tool's result. */
function model(): ScriptedChat {
  let calls = 0;
  const respond = ({ messages }: { messages: Message[] }) => {
    const last = messages.at(-1)!;
    if (last.type === "tool") return `answer: ${String(last.content)}`;
    return {
      content: null,
      toolCalls: [{ id: `c${++calls}`, name: "echo", arguments: { text: String(last.content) } }],
    };
  };
  return new ScriptedChat(Array.from({ length: 400 }, () => respond));
}

/** A thread's messages as [type, text]. */
const shape = (messages: Message[]) =>
  messages.map((m) => [m.type, m.type === "ai" && m.content === null ? "(tool call)" : m.content]);

describe("SqliteStateStore group commit under ReAct agents", () => {
  it("keeps 40 agents' conversations of two turns each, run at once, and reads them back cold", async () => {
    const path = join(dir, "agents.db");
    const store = new SqliteStateStore({ path });
    const agent = buildReactAgent(model(), { tools: [echo], stateStore: store });
    const ids = Array.from({ length: 40 }, (_, i) => `chat${i}`);
    for (const turn of [1, 2]) {
      const results = await Promise.all(
        ids.map((t) =>
          agent.invoke(
            { messages: [HumanMessage({ content: `${t} turn ${turn}` })] },
            { threadId: t },
          ),
        ),
      );
      expect(results.map((r) => r.status)).toEqual(ids.map(() => "completed"));
    }
    const expected = (t: string) =>
      [1, 2].flatMap((turn) => [
        ["human", `${t} turn ${turn}`],
        ["ai", "(tool call)"],
        ["tool", JSON.stringify({ result: `echo ${t} turn ${turn}` })],
        ["ai", `answer: ${JSON.stringify({ result: `echo ${t} turn ${turn}` })}`],
      ]);
    await store.close();
    const cold = new SqliteStateStore({ path });
    const coldAgent = buildReactAgent(model(), { tools: [echo], stateStore: cold });
    for (const t of ids) {
      const state = (await coldAgent.getState(t)).state as { messages: Message[] };
      expect(shape(state.messages)).toEqual(expected(t));
      const events = await cold.read(t, "main");
      expect(events.map((e) => e.seq)).toEqual(events.map((_, k) => k + 1));
    }
    await cold.close();
  });
});
