/**
 * Background runs on the server, over real HTTP: detached runs, streams that go on when their
 * client leaves, joining by run id from the start or from `Last-Event-ID`, listing and
 * cancelling, the event buffer's bound (410), the concurrent-run limit (429), heartbeats, the
 * idle timeout, and the UI stream's resume route.
 */

import { DefaultChatTransport, readUIMessageStream, type UIMessage } from "ai";
import { describe, expect, it } from "vitest";
import { buildReactAgent } from "../agents/react-agent.js";
import { ScriptedChat } from "../chat/scripted-chat.js";
import { MemoryStateStore } from "../stores/index.js";
import { tool } from "../tools/tool.js";
import { gatedGraph, setServer } from "./background-runs.fixture.js";
import { createServer, listen } from "./index.js";

describe("the UI stream's resume route (useChat({ resume: true }))", () => {
  it("answers 204 without an active run, and replays the active run's UI chunks after the client left", async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = tool(
      async () => {
        await gate;
        return "ok";
      },
      { name: "slow", description: "Waits." },
    );
    const agent = buildReactAgent(
      new ScriptedChat([
        { content: "Wait.", toolCalls: [{ id: "c1", name: "slow", arguments: {} }] },
        "Done.",
      ]),
      { tools: [slow], stateStore: new MemoryStateStore(), stream: true },
    );
    const listening = await listen(createServer({ graph: agent as never }), { port: 0 });
    setServer(listening);
    const api = `${listening.url}/api/threads/t-1/ui-stream`;
    // As docs/background-runs.md shows: runs go on after a reload; reconnecting uses `api`.
    const transport = new DefaultChatTransport<UIMessage>({
      api,
      prepareSendMessagesRequest: ({ api, id, messages, trigger, messageId, body }) => ({
        api: `${api}?onDisconnect=continue`,
        body: { ...body, id, messages, trigger, messageId },
      }),
    });
    const resumer = transport;
    expect(await resumer.reconnectToStream({ chatId: "t-1" })).toBeNull();

    const abort = new AbortController();
    const user: UIMessage = { id: "u1", role: "user", parts: [{ type: "text", text: "Go" }] };
    const chunks = await transport.sendMessages({
      chatId: "t-1",
      messages: [user],
      trigger: "submit-message",
      messageId: undefined,
      abortSignal: abort.signal,
    });
    const reader = chunks.getReader();
    const first: string[] = [];
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      first.push(r.value.type);
      if (r.value.type === "tool-input-available") break;
    }
    abort.abort(); // the page reloads
    await reader.cancel().catch(() => {});
    expect(first).toEqual([
      "start",
      "start-step",
      "text-start",
      "text-delta",
      "tool-input-start",
      "tool-input-delta",
      "text-end",
      "tool-input-available",
    ]);

    const resumed = await resumer.reconnectToStream({ chatId: "t-1" });
    expect(resumed).not.toBeNull();
    release();
    let message: UIMessage | undefined;
    for await (const m of readUIMessageStream<UIMessage>({
      stream: resumed as ReadableStream<never>,
    })) {
      message = m;
    }
    expect(message?.parts).toEqual([
      { type: "step-start" },
      { type: "text", text: "Wait.", state: "done" },
      {
        type: "tool-slow",
        toolCallId: "c1",
        state: "output-available",
        input: {},
        output: "ok",
      },
      { type: "step-start" },
      { type: "text", text: "Done.", state: "done" },
    ]);
    expect(message?.metadata).toEqual({ status: "done", usage: {} });
    expect(await resumer.reconnectToStream({ chatId: "t-1" })).toBeNull();
  });
});

describe("createServer's bounds", () => {
  it("refuses a bound that is not an integer in its range, with a TypeError naming it", () => {
    const { graph } = gatedGraph();
    expect(() => createServer({ graph: graph as never, maxConcurrentRuns: 0 })).toThrow(
      new TypeError("createServer: maxConcurrentRuns must be an integer ≥ 1, got 0"),
    );
    expect(() => createServer({ graph: graph as never, heartbeatMs: 1.5 })).toThrow(
      new TypeError("createServer: heartbeatMs must be an integer ≥ 0, got 1.5"),
    );
    expect(() => createServer({ graph: graph as never, runBufferEvents: -1 })).toThrow(
      new TypeError("createServer: runBufferEvents must be an integer ≥ 1, got -1"),
    );
  });
});
