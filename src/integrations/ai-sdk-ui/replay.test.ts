import { type UIMessage as AiUIMessage, readUIMessageStream, type UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { uiMessageChunks } from "./replay.js";
import type { UIMessage, UIStreamChunk } from "./types.js";

/** What the `ai` package's client builds from `start`, the chunks and `finish`. */
async function clientBuilds(id: string, chunks: UIStreamChunk[]): Promise<AiUIMessage> {
  const all = [{ type: "start", messageId: id }, ...chunks, { type: "finish" }];
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const c of all) controller.enqueue(c as UIMessageChunk);
      controller.close();
    },
  });
  let last: AiUIMessage | undefined;
  for await (const m of readUIMessageStream<AiUIMessage>({
    stream,
    onError: (e) => {
      throw e;
    },
  })) {
    last = m;
  }
  if (!last) throw new Error("no message");
  return last;
}

const message: UIMessage = {
  id: "a1",
  role: "assistant",
  parts: [
    { type: "step-start" },
    { type: "reasoning", text: "Two orders.", state: "done" },
    { type: "text", text: "Refunding both.", state: "done" },
    {
      type: "tool-refund",
      toolCallId: "c1",
      state: "output-available",
      input: { orderId: "A-1" },
      output: { refunded: true },
    },
    {
      type: "tool-refund",
      toolCallId: "c2",
      state: "approval-responded",
      input: { orderId: "A-2" },
      approval: { id: "1:0#c2", requestReason: "Refund A-2?", approved: false, reason: "no" },
    },
    {
      type: "tool-refund",
      toolCallId: "c3",
      state: "approval-requested",
      input: { orderId: "A-3" },
      approval: { id: "1:0#c3", requestReason: "Refund A-3?" },
    },
    {
      type: "tool-lookup",
      toolCallId: "c4",
      state: "output-error",
      input: {},
      errorText: "Tool error: no such order",
    },
    { type: "tool-refund", toolCallId: "c5", state: "output-denied", input: { orderId: "A-5" } },
    { type: "step-start" },
    { type: "text", text: "Waiting for you.", state: "done" },
  ],
};

describe("uiMessageChunks (a continued message, replayed from nothing)", () => {
  it("sends the chunks that rebuild every part, in order", () => {
    expect(uiMessageChunks(message)).toEqual([
      { type: "start-step" },
      { type: "reasoning-start", id: "replay:1" },
      { type: "reasoning-delta", id: "replay:1", delta: "Two orders." },
      { type: "reasoning-end", id: "replay:1" },
      { type: "text-start", id: "replay:2" },
      { type: "text-delta", id: "replay:2", delta: "Refunding both." },
      { type: "text-end", id: "replay:2" },
      {
        type: "tool-input-available",
        toolCallId: "c1",
        toolName: "refund",
        input: { orderId: "A-1" },
      },
      { type: "tool-output-available", toolCallId: "c1", output: { refunded: true } },
      {
        type: "tool-input-available",
        toolCallId: "c2",
        toolName: "refund",
        input: { orderId: "A-2" },
      },
      {
        type: "tool-approval-request",
        approvalId: "1:0#c2",
        toolCallId: "c2",
        reason: "Refund A-2?",
      },
      { type: "tool-approval-response", approvalId: "1:0#c2", approved: false, reason: "no" },
      {
        type: "tool-input-available",
        toolCallId: "c3",
        toolName: "refund",
        input: { orderId: "A-3" },
      },
      {
        type: "tool-approval-request",
        approvalId: "1:0#c3",
        toolCallId: "c3",
        reason: "Refund A-3?",
      },
      { type: "tool-input-available", toolCallId: "c4", toolName: "lookup", input: {} },
      { type: "tool-output-error", toolCallId: "c4", errorText: "Tool error: no such order" },
      {
        type: "tool-input-available",
        toolCallId: "c5",
        toolName: "refund",
        input: { orderId: "A-5" },
      },
      { type: "tool-output-denied", toolCallId: "c5" },
      { type: "finish-step" },
      { type: "start-step" },
      { type: "text-start", id: "replay:9" },
      { type: "text-delta", id: "replay:9", delta: "Waiting for you." },
      { type: "text-end", id: "replay:9" },
      { type: "finish-step" },
    ]);
  });

  it("makes the ai package's client build the same message", async () => {
    const built = await clientBuilds("a1", uiMessageChunks(message));
    // As JSON (the client leaves keys it has no value for as undefined); a reasoning part
    // keeps its stream id.
    expect(JSON.parse(JSON.stringify(built))).toEqual({
      id: "a1",
      role: "assistant",
      parts: message.parts.map((p, i) =>
        p.type === "reasoning" ? { ...p, id: `replay:${i}` } : p,
      ),
    });
  });

  it("sends nothing for a message with no parts, and leaves out a call whose input still streams", () => {
    expect(uiMessageChunks({ id: "a", role: "assistant", parts: [] })).toEqual([]);
    expect(
      uiMessageChunks({
        id: "a",
        role: "assistant",
        parts: [{ type: "tool-x", toolCallId: "c", state: "input-streaming", input: {} }],
      }),
    ).toEqual([]);
  });
});
