// OpenAIChat's failures (retries, errors mid-stream, timeouts, cancelling) and the optional
// openai package. Shared setup: openai-chat.fixture.ts.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { assembleStream } from "../../chat/assemble-stream.js";
import type { ChatStreamChunk } from "../../chat/types.js";
import { RunCancelledError } from "../../errors/index.js";
import { loadPeer } from "../internal/call.js";
import { ReplayServer } from "../testing/replay-server.js";
import { OpenAIChat } from "./index.js";

import {
  ask,
  chunk,
  collect,
  ERR_500,
  failure,
  httpError,
  json,
  MODEL,
  makeChat,
  server,
  setUpReplayServer,
  sse,
  stripRaw,
  textCompletion,
  textEvents,
} from "./openai-chat.fixture.js";

setUpReplayServer();

describe("OpenAIChat failures", () => {
  it("retries a 429 after the retry-after header, then succeeds", async () => {
    server.enqueue(httpError(429, { "retry-after": "1" }), json(textCompletion("ok")));
    const started = Date.now();
    const response = await makeChat({ initialRetryDelayMs: 1 }).complete(ask());
    expect(response.content).toBe("ok");
    expect(server.requests).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
  });

  it("honours retry-after-ms over its own back-off", async () => {
    server.enqueue(httpError(429, { "retry-after-ms": "150" }), json(textCompletion("ok")));
    const started = Date.now();
    await makeChat({ initialRetryDelayMs: 20_000, maxRetryDelayMs: 20_000 }).complete(ask());
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(140);
    expect(elapsed).toBeLessThan(5000);
  });

  it("gives up on 429 after maxRetries with a retryable ModelProviderError", async () => {
    server.fallback = httpError(429);
    const error = await failure(makeChat({ maxRetries: 2 }).complete(ask()));
    expect(server.requests).toHaveLength(3);
    expect(error.provider).toBe("openai");
    expect(error.status).toBe(429);
    expect(error.retryable).toBe(true);
    expect(error.message).toContain("Rate limit reached for gpt-4o-mini");
    expect(error.message).toContain("gave up after 3 attempts");
  });

  it("does not retry a 401", async () => {
    server.fallback = httpError(401);
    const error = await failure(makeChat().complete(ask()));
    expect(server.requests).toHaveLength(1);
    expect(error.status).toBe(401);
    expect(error.retryable).toBe(false);
    expect(error.message).toContain("Incorrect API key provided");
  });

  it("retries a 500 and a stream that cannot start, with maxRetries 0 meaning one attempt", async () => {
    server.enqueue(httpError(500), sse(textEvents("ok")));
    expect((await assembleStream(makeChat().stream(ask()))).content).toBe("ok");
    expect(server.requests).toHaveLength(2);
    server.reset();
    server.fallback = httpError(500);
    const error = await failure(makeChat({ maxRetries: 0 }).complete(ask()));
    expect(server.requests).toHaveLength(1);
    expect([error.status, error.retryable]).toEqual([500, true]);
  });

  it("raises an error event in the middle of a stream after the chunks before it", async () => {
    server.enqueue(
      sse([chunk({ role: "assistant", content: "" }), chunk({ content: "Order" }), ERR_500], false),
    );
    const seen: ChatStreamChunk[] = [];
    const error = await failure(
      (async () => {
        for await (const c of makeChat().stream(ask())) seen.push(c);
      })(),
    );
    expect(stripRaw(seen)).toEqual([{ contentDelta: "Order", model: MODEL }]);
    expect(error.status).toBeUndefined();
    expect(error.retryable).toBe(true);
    expect(error.message).toContain("The server had an error while processing your request");
    expect(server.requests).toHaveLength(1);
  });

  it("raises a retryable error when the connection breaks off mid-stream", async () => {
    server.enqueue({
      ...sse(textEvents("Order A-1001 has shipped.").slice(0, 3), false),
      breakOff: true,
    });
    const error = await failure(collect(makeChat({ maxRetries: 0 }).stream(ask())));
    expect(error.retryable).toBe(true);
    expect(error.status).toBeUndefined();
    expect(error.message).toMatch(/^The OpenAI stream broke off: terminated/);
  });

  it("raises a retryable error when the stream ends before a finish reason", async () => {
    server.enqueue(sse(textEvents("Order A-1001 has shipped.").slice(0, 3), false));
    const error = await failure(collect(makeChat().stream(ask())));
    expect(error.retryable).toBe(true);
    expect(error.message).toBe(
      "The OpenAI stream broke off: it ended before the model finished (no finish_reason)",
    );
  });

  it("times out a call whose answer does not come, and a stream that stalls", async () => {
    server.fallback = { headers: { "content-type": "application/json" }, hang: true };
    const error = await failure(makeChat({ timeoutMs: 100, maxRetries: 1 }).complete(ask()));
    expect(error.retryable).toBe(true);
    expect(error.status).toBeUndefined();
    expect(error.message).toBe(
      "The openai call timed out after 100 ms (timeoutMs) (gave up after 2 attempts)",
    );
    expect(server.requests).toHaveLength(2);
    server.reset();
    server.enqueue({ ...sse(textEvents("Order A-1001").slice(0, 2), false), hang: true });
    const seen: ChatStreamChunk[] = [];
    const streamError = await failure(
      (async () => {
        for await (const c of makeChat({ timeoutMs: 150, maxRetries: 0 }).stream(ask()))
          seen.push(c);
      })(),
    );
    expect(seen.map((c) => c.contentDelta)).toEqual(["Order "]);
    expect(streamError.message).toBe("The openai call timed out after 150 ms (timeoutMs)");
  });

  it("counts only the wait for the provider against timeoutMs, not a slow reader", async () => {
    server.enqueue(sse(textEvents("Order A-1001")));
    const seen: string[] = [];
    for await (const c of makeChat({ timeoutMs: 100, maxRetries: 0 }).stream(ask())) {
      if (c.contentDelta) seen.push(c.contentDelta);
      await new Promise((r) => setTimeout(r, 150));
    }
    expect(seen).toEqual(["Order ", "A-1001"]);
  });

  it("raises a retryable connection error when nothing listens", async () => {
    const closed = await ReplayServer.start();
    const url = closed.url;
    await closed.close();
    const error = await failure(
      new OpenAIChat({ model: "m", apiKey: "k", baseURL: url, maxRetries: 0 }).complete(ask()),
    );
    expect(error.retryable).toBe(true);
    expect(error.status).toBeUndefined();
    expect(error.message).toMatch(/^Could not reach OpenAI/);
  });

  it("cancels a stream in the middle through the signal", async () => {
    server.enqueue({ ...sse(textEvents("Order A-1001").slice(0, 2), false), hang: true });
    const controller = new AbortController();
    const started = Date.now();
    let error: unknown = null;
    try {
      for await (const c of makeChat().stream(ask(), { signal: controller.signal }))
        if (c.contentDelta) controller.abort(new Error("user left"));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RunCancelledError);
    expect((error as RunCancelledError).cause).toEqual(new Error("user left"));
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("waits for no back-off once cancelled", async () => {
    server.fallback = httpError(503);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    await expect(
      makeChat({ initialRetryDelayMs: 60_000, maxRetryDelayMs: 60_000 }).complete(ask(), {
        signal: controller.signal,
      }),
    ).rejects.toBeInstanceOf(RunCancelledError);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(server.requests).toHaveLength(1);
  });
});

// ---- Loading the SDK -----------------------------------------------------------------------

describe("OpenAIChat and the optional openai package", () => {
  it("imports openai only lazily (type imports and a dynamic import)", () => {
    const source = readFileSync(new URL("./openai-chat.ts", import.meta.url), "utf8");
    const staticImports = source.match(/^import\s+(?!type\b)[^;]*from\s+"openai[^"]*"/gm);
    expect(staticImports).toBeNull();
    expect(source).toContain('import("openai")');
  });

  it("a missing SDK says which package to install", async () => {
    const missing = "nodestep-missing-sdk-for-test";
    const error = await failure(loadPeer(missing, "OpenAIChat", "openai", () => import(missing)));
    expect(error.message).toBe(
      `OpenAIChat needs the "${missing}" package, which is not installed: run \`npm install ${missing}\``,
    );
    expect(error.retryable).toBe(false);
    expect(error.provider).toBe("openai");
  });

  it("checks its options", () => {
    expect(() => new OpenAIChat({ model: "" })).toThrow(/needs a model name/);
    expect(() => new OpenAIChat({ model: "m", maxRetries: -1 })).toThrow(/maxRetries/);
  });
});

// ---- Conformance ---------------------------------------------------------------------------
