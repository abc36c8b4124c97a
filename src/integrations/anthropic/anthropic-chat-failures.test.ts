// AnthropicChat's failures (retries, errors mid-stream, timeouts, cancelling).
// Shared setup: anthropic-chat.fixture.ts.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { ChatStreamChunk } from "../../chat/types.js";
import { RunCancelledError } from "../../errors/index.js";
import {
  ask,
  collect,
  ev,
  failure,
  httpError,
  json,
  makeChat,
  messageStart,
  server,
  setUpReplayServer,
  sse,
  textEvents,
  textMessage,
} from "./anthropic-chat.fixture.js";
import { AnthropicChat } from "./index.js";

setUpReplayServer();

// ---- Failures ------------------------------------------------------------------------------

describe("AnthropicChat failures", () => {
  it("retries 429 after retry-after and 529 overloaded, then succeeds", async () => {
    server.enqueue(httpError(429, { "retry-after": "0" }), httpError(529), json(textMessage("ok")));
    expect((await makeChat().complete(ask())).content).toBe("ok");
    expect(server.requests).toHaveLength(3);
  });

  it("gives up after maxRetries, and never retries a 401", async () => {
    server.fallback = httpError(529);
    const overloaded = await failure(makeChat({ maxRetries: 1 }).complete(ask()));
    expect([overloaded.provider, overloaded.status, overloaded.retryable]).toEqual([
      "anthropic",
      529,
      true,
    ]);
    expect(overloaded.message).toContain("Overloaded");
    expect(server.requests).toHaveLength(2);
    server.reset();
    server.fallback = httpError(401);
    const auth = await failure(collect(makeChat().stream(ask())));
    expect([auth.status, auth.retryable]).toEqual([401, false]);
    expect(auth.message).toContain("invalid x-api-key");
    expect(server.requests).toHaveLength(1);
  });

  it("raises an error event in the middle of a stream", async () => {
    server.enqueue(
      sse(
        [
          messageStart,
          ev("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
          ev("content_block_delta", { index: 0, delta: { type: "text_delta", text: "Order" } }),
          {
            event: "error",
            data: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
          },
        ],
        false,
      ),
    );
    const seen: ChatStreamChunk[] = [];
    const error = await failure(
      (async () => {
        for await (const c of makeChat().stream(ask())) seen.push(c);
      })(),
    );
    expect(seen.map((c) => c.contentDelta ?? null)).toEqual([null, "Order"]);
    expect([error.status, error.retryable]).toEqual([undefined, true]);
    expect(error.message).toContain("Overloaded");
  });

  it("a fatal error event is not retryable", async () => {
    server.enqueue(
      sse(
        [
          messageStart,
          {
            event: "error",
            data: { type: "error", error: { type: "invalid_request_error", message: "bad" } },
          },
        ],
        false,
      ),
    );
    const error = await failure(collect(makeChat().stream(ask())));
    expect(error.retryable).toBe(false);
  });

  it("raises a retryable error when the stream breaks off or ends before message_stop", async () => {
    server.enqueue({ ...sse(textEvents("Order A-1001").slice(0, 3), false), breakOff: true });
    const broken = await failure(collect(makeChat().stream(ask())));
    expect(broken.retryable).toBe(true);
    expect(broken.message).toMatch(/^The Anthropic stream broke off: terminated/);
    server.enqueue(sse(textEvents("Order A-1001"), false));
    const ended = await failure(collect(makeChat().stream(ask())));
    expect(ended.message).toBe("The Anthropic stream broke off: it ended before message_stop");
  });

  it("times out and cancels mid-stream", async () => {
    server.enqueue({ ...sse(textEvents("Order A-1001").slice(0, 3), false), hang: true });
    const timedOut = await failure(
      collect(makeChat({ timeoutMs: 150, maxRetries: 0 }).stream(ask())),
    );
    expect(timedOut.message).toBe("The anthropic call timed out after 150 ms (timeoutMs)");
    server.enqueue({ ...sse(textEvents("Order A-1001").slice(0, 3), false), hang: true });
    const controller = new AbortController();
    let error: unknown = null;
    try {
      for await (const c of makeChat().stream(ask(), { signal: controller.signal }))
        if (c.contentDelta) controller.abort();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RunCancelledError);
  });

  it("imports the SDK only lazily", () => {
    const source = readFileSync(new URL("./anthropic-chat.ts", import.meta.url), "utf8");
    expect(source.match(/^import\s+(?!type\b)[^;]*from\s+"@anthropic-ai\/sdk[^"]*"/gm)).toBeNull();
    expect(source).toContain('import("@anthropic-ai/sdk")');
  });

  it("checks its options", () => {
    expect(() => new AnthropicChat({ model: "" })).toThrow(/needs a model name/);
    expect(() => new AnthropicChat({ model: "m", maxTokens: 0 })).toThrow(/maxTokens/);
  });
});
