import { describe, expect, it } from "vitest";
import { buildReactAgent } from "../../agents/react-agent.js";
import { ScriptedChat } from "../../chat/scripted-chat.js";
import { MemoryStateStore } from "../../stores/memory-state-store.js";
import { tool } from "../../tools/tool.js";
import { UI_STREAM_MODES, uiStreamResponse } from "./index.js";

describe("a client that goes away", () => {
  it("cancelling the Response body cancels the run: the tool sees its signal and the thread keeps its last position", async () => {
    let aborted = false;
    const wait = tool(
      (_a, ctx) =>
        new Promise<string>((_resolve, reject) => {
          ctx.signal.addEventListener("abort", () => {
            aborted = true;
            reject(ctx.signal.reason);
          });
        }),
      { name: "wait", description: "Waits until cancelled." },
    );
    const store = new MemoryStateStore();
    const chat = new ScriptedChat([
      { toolCalls: [{ id: "c1", name: "wait", arguments: {} }] },
      "Again.",
    ]);
    const agent = buildReactAgent(chat, { tools: [wait], stateStore: store, stream: true });
    const response = uiStreamResponse(
      agent.stream(
        { messages: [{ type: "human", id: "u1", content: "go" }] },
        {
          threadId: "w",
          modes: UI_STREAM_MODES,
        },
      ),
    );
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let text = "";
    while (!text.includes('"tool-input-available"')) {
      const r = await reader.read();
      text += new TextDecoder().decode(r.value);
    }
    await reader.cancel();
    expect(aborted).toBe(true);
    const after = await agent.getState("w");
    // The stopped turn is kept as the thread's last position: act is next, as after any stopped step.
    expect({
      status: after.status,
      next: after.next,
      messages: after.state.messages.length,
    }).toEqual({
      status: "failed",
      next: ["act"],
      messages: 2,
    });
  });
});
