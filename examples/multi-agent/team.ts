// The team of the multi-agent examples: a researcher agent, the supervisor's state and its
// report. Both supervisor.ts (one process) and workers.ts (BullMQ workers) use it; worker.ts
// registers the researcher under the same name on every worker.

import { buildReactAgent, defineState, HumanMessage, ScriptedChat, tool } from "nodestep";
import { type ChatRequest, type ChatResponseInit, textOf } from "nodestep/chat";
import { z } from "zod";

/** What the supervisor is asked, and the topics it hands to one researcher each. */
export const QUESTION = "What shapes the tides?";
export const TOPICS = ["moon", "sun", "coastline"];

const NOTES: Record<string, string> = {
  moon: "the moon's gravity raises two bulges of water",
  sun: "the sun adds spring and neap tides",
  coastline: "bays and shelves amplify the range",
};

const searchNotes = tool(({ topic }) => NOTES[topic] ?? "nothing found", {
  name: "search_notes",
  description: "Search the research notes on a topic.",
  input: z.object({ topic: z.string() }),
});

// A scripted model whose answer is computed from the request, so that the same script serves
// every researcher, whichever runs first: search the notes, then answer with what they said.
function answer(request: ChatRequest): ChatResponseInit | string {
  const topic = textOf(request.messages.find((m) => m.type === "human")?.content) ?? "";
  const last = request.messages.at(-1);
  if (last?.type !== "tool") {
    return { toolCalls: [{ id: `call-${topic}`, name: "search_notes", arguments: { topic } }] };
  }
  const { result } = JSON.parse(textOf(last.content) ?? "{}") as { result: string };
  return `${topic}: ${result}`;
}

/** The researcher: a tool-calling agent that looks its topic up and answers in one line. */
export const researcher = buildReactAgent(
  new ScriptedChat(Array.from({ length: 10_000 }, () => answer)),
  { name: "researcher", tools: [searchNotes] },
);

/** Graphs by name, the same in the supervisor's process and on every worker. */
export const registry = { researcher };

/** The input of one researcher. */
export const researchInput = (topic: string) => ({ messages: [HumanMessage({ content: topic })] });

/** The supervisor's state. */
export const Supervisor = defineState({
  question: z.string().default(""),
  topics: z.array(z.string()).default([]),
  findings: z.array(z.string()).default([]),
  report: z.string().default(""),
});
export type Supervisor = typeof Supervisor.State;

/** Merge the researchers' findings into one report. */
export function mergeReport(question: string, findings: readonly string[]): string {
  return [`Report: ${question}`, ...findings.map((f) => `- ${f}`)].join("\n");
}
