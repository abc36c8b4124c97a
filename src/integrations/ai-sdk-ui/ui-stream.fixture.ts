/**
 * What the UI message stream tests share: a scripted agent, the ai package's client reading a stream, and the temporary directories they clean up.
 */

import { rmSync } from "node:fs";
import {
  type UIMessage as AiUIMessage,
  DefaultChatTransport,
  readUIMessageStream,
  type UIMessageChunk,
} from "ai";
import { afterEach } from "vitest";
import { z } from "zod";
import { buildReactAgent } from "../../agents/react-agent.js";
import { ScriptedChat } from "../../chat/scripted-chat.js";
import { ApprovalMiddleware } from "../../middleware/approval.js";
import type { StateStore } from "../../stores/types.js";
import { tool } from "../../tools/tool.js";

export const usage = { inputTokens: 10, outputTokens: 4, totalTokens: 14 };

export function script() {
  return new ScriptedChat([
    {
      reasoning: [{ type: "reasoning", text: "Need the order.", provider: "scripted", data: null }],
      content: "Checking.",
      toolCalls: [{ id: "c1", name: "refund", arguments: { orderId: "A-1", amount: 20 } }],
      usage,
    },
    { content: "Refunded 20 EUR.", usage: { inputTokens: 20, outputTokens: 5, totalTokens: 25 } },
  ]);
}

export const refund = tool(
  ({ orderId, amount }: { orderId: string; amount: number }, ctx) => {
    ctx.emit({ type: "progress", id: "refund", step: "paying" });
    return `refunded ${amount} EUR on ${orderId}`;
  },
  {
    name: "refund",
    description: "Refund an order.",
    input: z.object({ orderId: z.string(), amount: z.number() }),
  },
);

export function agentOn(store: StateStore, chat: ScriptedChat, stream = true) {
  return buildReactAgent(chat, {
    tools: [refund],
    middleware: [ApprovalMiddleware({ tools: ["refund"], question: "Refund 20 EUR on A-1?" })],
    stateStore: store,
    stream,
  });
}

/** What useChat does with an answer: DefaultChatTransport (its SSE parser and chunk schema), then the message it assembles. */
export async function clientRead(
  response: Response,
  messages: AiUIMessage[],
  last?: AiUIMessage,
): Promise<{ message: AiUIMessage; body: unknown; errors: string[] }> {
  let body: unknown;
  const transport = new DefaultChatTransport<AiUIMessage>({
    api: "http://local/api/chat",
    fetch: async (_url, init) => {
      body = JSON.parse(String(init?.body));
      return response;
    },
  });
  const chunks = await transport.sendMessages({
    chatId: "t-1",
    messages,
    trigger: "submit-message",
    messageId: undefined,
    abortSignal: undefined,
  });
  const errors: string[] = [];
  let message: AiUIMessage | undefined;
  for await (const m of readUIMessageStream<AiUIMessage>({
    stream: chunks as ReadableStream<UIMessageChunk>,
    ...(last ? { message: last } : {}),
    onError: (e) => errors.push((e as Error).message),
  })) {
    message = m;
  }
  return { message: message as AiUIMessage, body, errors };
}

/** The parts as the stream builds them: the reasoning part keeps the chunk id. */
export function streamed(parts: readonly object[]): object[] {
  return parts.map((p) =>
    (p as { type: string }).type === "reasoning" ? { ...p, id: "0:0:reasoning:0" } : p,
  );
}

/** What useChat's addToolApprovalResponse does to the part it answers. */
export function answer(
  part: AiUIMessage["parts"][number],
  given: { approved: boolean; reason: string | undefined },
): AiUIMessage["parts"][number] {
  const p = part as { approval: { id: string } };
  return {
    ...part,
    state: "approval-responded",
    approval: { ...p.approval, ...given },
  } as AiUIMessage["parts"][number];
}

export const userMessage: AiUIMessage = {
  id: "u1",
  role: "user",
  parts: [{ type: "text", text: "Refund A-1" }],
};

/** As the history maps them: the stream's reasoning part also has the stream's part id. */
export const pausedParts = [
  { type: "step-start" },
  { type: "reasoning", text: "Need the order.", state: "done" },
  { type: "text", text: "Checking.", state: "done" },
  {
    type: "tool-refund",
    toolCallId: "c1",
    state: "approval-requested",
    input: { orderId: "A-1", amount: 20 },
    approval: { id: "1:0#c1", requestReason: "Refund 20 EUR on A-1?" },
  },
];

export let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});
