import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildReactAgent } from "../agents/react-agent.js";
import {
  FallbackExhaustedError,
  ModelProviderError,
  RunCancelledError,
  UnsupportedPartError,
  ValidationError,
} from "../errors/index.js";
import { SqliteStateStore } from "../integrations/sqlite/index.js";
import { assembleStream } from "./assemble-stream.js";
import { fallbackChat } from "./fallback-chat.js";
import { HumanMessage } from "./messages.js";
import { ScriptedChat } from "./scripted-chat.js";
import { type Chat, ChatRequest, type ChatStreamChunk } from "./types.js";

const err = (status: number | undefined, message = `HTTP ${status}`) =>
  new ModelProviderError(message, {
    provider: "test",
    ...(status !== undefined ? { status } : {}),
    retryable: status === undefined || status === 429 || status >= 500,
  });
const request = () => ChatRequest({ messages: [HumanMessage({ content: "Hi" })] });

/** A chat whose stream sends `before` chunks and then fails with `error`. */
function failingStream(model: string, error: Error, before: ChatStreamChunk[] = []): Chat {
  let calls = 0;
  return {
    model,
    async complete() {
      calls++;
      throw error;
    },
    async *stream() {
      calls++;
      yield* before;
      throw error;
    },
    get calls() {
      return calls;
    },
  } as Chat;
}

describe("fallbackChat", () => {
  it("moves on for rate limits, server errors, time-outs and unsupported parts, in order, and records why", async () => {
    const chat = fallbackChat([
      new ScriptedChat([err(429, "slow down")], { model: "a" }),
      new ScriptedChat([err(503, "overloaded")], { model: "b" }),
      new ScriptedChat([err(undefined, "The openai call timed out after 10 ms (timeoutMs)")], {
        model: "c",
      }),
      new ScriptedChat(
        [
          new UnsupportedPartError("cannot send audio", {
            provider: "x",
            partType: "audio",
            path: "messages[0].content[0]",
          }),
        ],
        { model: "d" },
      ),
      new ScriptedChat(["Hello."], { model: "e" }),
    ]);
    expect(chat.model).toBe("a|b|c|d|e");
    const r = await chat.complete(request());
    expect(r.content).toBe("Hello.");
    expect(r.model).toBe("e");
    expect(r.responseMetadata).toEqual({
      fallback: {
        model: "e",
        skipped: [
          { model: "a", reason: "rate_limit", status: 429, message: "slow down" },
          { model: "b", reason: "provider_error", status: 503, message: "overloaded" },
          {
            model: "c",
            reason: "timeout",
            status: null,
            message: "The openai call timed out after 10 ms (timeoutMs)",
          },
          { model: "d", reason: "unsupported", status: null, message: "cannot send audio" },
        ],
      },
    });
  });

  it("never moves on for a bad request, a caller's validation error or a cancellation", async () => {
    for (const error of [
      err(400, "bad request"),
      err(422, "unprocessable"),
      new ValidationError("bad args", { issues: [] }),
      new RunCancelledError("cancelled"),
    ]) {
      const second = new ScriptedChat(["never"], { model: "b" });
      const chat = fallbackChat([new ScriptedChat([error], { model: "a" }), second]);
      await expect(chat.complete(request())).rejects.toBe(error);
      expect(second.requests).toHaveLength(0);
    }
  });

  it("throws FallbackExhaustedError listing every model when all fail", async () => {
    const chat = fallbackChat([
      new ScriptedChat([err(429, "slow down")], { model: "a" }),
      new ScriptedChat([err(500, "boom")], { model: "b" }),
    ]);
    const e = (await chat.complete(request()).catch((x: unknown) => x)) as FallbackExhaustedError;
    expect(e).toBeInstanceOf(FallbackExhaustedError);
    expect(e.message).toBe("All 2 models failed: a: slow down; b: boom");
    expect([e.status, e.retryable, e.provider]).toEqual([500, true, "fallback"]);
    expect(e.attempts.map((a) => a.model)).toEqual(["a", "b"]);
  });

  it("stream: falls back before the first chunk, never after it", async () => {
    const chat = fallbackChat([
      failingStream("a", err(429, "slow down")),
      new ScriptedChat(["Hello there."], { model: "b" }),
    ]);
    const r = await assembleStream(chat.stream(request()));
    expect(r.content).toBe("Hello there.");
    expect(r.responseMetadata).toEqual({
      fallback: {
        model: "b",
        skipped: [{ model: "a", reason: "rate_limit", status: 429, message: "slow down" }],
      },
    });
    const late = err(503, "broke off");
    const third = new ScriptedChat(["never"], { model: "c" });
    const after = fallbackChat([failingStream("a", late, [{ contentDelta: "Hel" }]), third]);
    const seen: ChatStreamChunk[] = [];
    const e = await (async () => {
      for await (const c of after.stream(request())) seen.push(c);
    })().catch((x: unknown) => x);
    expect(e).toBe(late);
    expect(seen).toEqual([{ contentDelta: "Hel" }]);
    expect(third.requests).toHaveLength(0);
  });

  it("the AIMessage of an agent keeps which model answered, through the store and back (cold)", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "nodestep-fallback-")), "t.db");
    const make = (store = new SqliteStateStore({ path })) =>
      buildReactAgent(
        fallbackChat([
          new ScriptedChat([err(429, "slow down")], { model: "a" }),
          new ScriptedChat(["Hello."], { model: "b" }),
        ]),
        { tools: [], stateStore: store },
      );
    await make().invoke({ messages: [HumanMessage({ content: "Hi" })] }, { threadId: "t1" });
    const snapshot = await make().getState("t1");
    const ai = snapshot.state.messages[1];
    expect(ai).toEqual({
      type: "ai",
      id: expect.any(String),
      content: "Hello.",
      refusal: null,
      toolCalls: [],
      reasoning: [],
      finishReason: "stop",
      usage: {},
      responseMetadata: {
        fallback: {
          model: "b",
          skipped: [{ model: "a", reason: "rate_limit", status: 429, message: "slow down" }],
        },
      },
    });
  });

  it("refuses an empty list and non-chats", () => {
    expect(() => fallbackChat([])).toThrow("fallbackChat needs at least one model");
    expect(() => fallbackChat([{} as Chat])).toThrow(
      "fallbackChat: models[0] is not a Chat (it needs complete and stream)",
    );
  });
});
