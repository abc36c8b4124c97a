import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { caught, expectError } from "../../test/helpers.js";
import { buildReactAgent, runAgent } from "../agents/react-agent.js";
import { HumanMessage } from "../chat/messages.js";
import { ScriptedChat } from "../chat/scripted-chat.js";
import type { Chat } from "../chat/types.js";
import {
  ModelProviderError,
  RunCancelledError,
  ToolExecutionError,
  ValidationError,
  ValueError,
} from "../errors/index.js";
import { SqliteStateStore } from "../integrations/sqlite/index.js";
import { callTool } from "../tools/call-tool.js";
import { tool } from "../tools/tool.js";
import { ToolContext } from "../tools/tool-context.js";
import { backoffDelay, checkBackoff, type RetryClock } from "./backoff.js";
import { isRetryableModelError, ModelRetryMiddleware } from "./model-retry.js";
import { ToolRetryMiddleware } from "./tool-retry.js";
import type { Middleware } from "./types.js";

/** A clock whose waits are recorded and take no time. */
function fakeClock(): RetryClock & { sleeps: number[]; t: number } {
  const c = {
    t: 1_000,
    sleeps: [] as number[],
    now: () => c.t,
    sleep: async (ms: number, signal: AbortSignal) => {
      if (signal.aborted) throw new RunCancelledError("cancelled");
      c.sleeps.push(ms);
      c.t += ms;
    },
  };
  return c;
}

const err = (status: number | undefined, message: string, more: { retryAfterMs?: number } = {}) =>
  new ModelProviderError(message, { provider: "test", status, retryable: true, ...more });

const ask = (text: string) => ({ messages: [HumanMessage({ content: text })] });

async function customEvents(agent: ReturnType<typeof buildReactAgent>, text: string) {
  const out: unknown[] = [];
  for await (const e of agent.stream(ask(text), { modes: ["custom"] })) out.push(e.data);
  return out;
}

describe("backoff", () => {
  it("grows by the factor, is capped, and loses up to `jitter` of it at random", () => {
    const b = checkBackoff("x", {
      initialDelayMs: 100,
      backoffFactor: 3,
      maxDelayMs: 500,
      jitter: 0.5,
    });
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, b, () => 0))).toEqual([100, 300, 500, 500]);
    expect([1, 2, 3].map((n) => backoffDelay(n, b, () => 0.5))).toEqual([75, 225, 375]);
    expect(backoffDelay(1, b, () => 0.999)).toBe(50);
  });

  it("refuses out-of-range options, naming them", async () => {
    await expectError(
      () => ModelRetryMiddleware({ jitter: 2 }),
      ValueError,
      "ModelRetryMiddleware: jitter must be a number from 0 to 1, got 2",
    );
    await expectError(
      () => ModelRetryMiddleware({ maxAttempts: 0 }),
      ValueError,
      "ModelRetryMiddleware: maxAttempts must be an integer ≥ 1, got 0",
    );
    await expectError(
      () => ModelRetryMiddleware({ backoffFactor: 0.5 }),
      ValueError,
      "ModelRetryMiddleware: backoffFactor must be a number ≥ 1, got 0.5",
    );
    await expectError(
      () => ModelRetryMiddleware({ budgetMs: -1 }),
      ValueError,
      "ModelRetryMiddleware: budgetMs must be a number ≥ 0, got -1",
    );
    await expectError(
      () => ToolRetryMiddleware({ tools: { ping: { initialDelayMs: -5 } } }),
      ValueError,
      'ToolRetryMiddleware (tool "ping"): initialDelayMs must be a number ≥ 0, got -5',
    );
    await expectError(
      () => ToolRetryMiddleware({ default: { retryOn: "all" as never } }),
      ValueError,
      "ToolRetryMiddleware (default policy): retryOn must be a list of error classes or a function",
    );
  });
});

describe("ModelRetryMiddleware", () => {
  it("retries provider errors with back-off and jitter, honouring Retry-After; each retry is a custom event", async () => {
    const clock = fakeClock();
    const chat = new ScriptedChat([
      err(503, "overloaded"),
      err(429, "slow down", { retryAfterMs: 1500 }),
      "Done.",
    ]);
    const retry = ModelRetryMiddleware({ initialDelayMs: 100, random: () => 0.5, clock });
    const agent = buildReactAgent(chat, { tools: [], middleware: [retry] });
    expect(await customEvents(agent, "hi")).toEqual([
      {
        kind: "model_retry",
        model: "scripted",
        attempt: 1,
        delayMs: 75,
        status: 503,
        message: "overloaded",
      },
      {
        kind: "model_retry",
        model: "scripted",
        attempt: 2,
        delayMs: 1500,
        status: 429,
        message: "slow down",
      },
    ]);
    expect(clock.sleeps).toEqual([75, 1500]);
    expect(chat.requests).toHaveLength(3);
  });

  it("gives up after maxAttempts with the last error as it is", async () => {
    const clock = fakeClock();
    const chat = new ScriptedChat([err(500, "a"), err(502, "b"), err(500, "c"), "never"]);
    const agent = buildReactAgent(chat, {
      tools: [],
      middleware: [ModelRetryMiddleware({ maxAttempts: 3, initialDelayMs: 100, jitter: 0, clock })],
    });
    const e = await caught(() => runAgent(agent, "hi"));
    expect(e).toBeInstanceOf(ModelProviderError);
    expect(e.message).toBe("c");
    expect(clock.sleeps).toEqual([100, 200]);
    expect(chat.requests).toHaveLength(3);
  });

  it("does not retry a bad request, an auth error, or an error that is not the provider's", async () => {
    for (const error of [
      err(400, "bad request"),
      err(401, "no key"),
      new TypeError("my bug"),
      new ModelProviderError("no status, not retryable", { provider: "test" }),
    ]) {
      const clock = fakeClock();
      const chat = new ScriptedChat([error, "never"]);
      const agent = buildReactAgent(chat, {
        tools: [],
        middleware: [ModelRetryMiddleware({ clock })],
      });
      expect(await caught(() => runAgent(agent, "hi"))).toBe(error);
      expect(clock.sleeps).toEqual([]);
      expect(chat.requests).toHaveLength(1);
    }
    expect(isRetryableModelError(err(undefined, "timed out"))).toBe(true);
    expect(isRetryableModelError(err(529, "overloaded"))).toBe(true);
    expect(isRetryableModelError(err(503, "x"), [429])).toBe(false);
  });

  it("stops when the next wait would end past budgetMs, counting from the first attempt", async () => {
    const clock = fakeClock();
    const chat = new ScriptedChat([err(500, "a"), err(500, "b"), "never"]);
    const agent = buildReactAgent(chat, {
      tools: [],
      middleware: [
        ModelRetryMiddleware({
          maxAttempts: 5,
          initialDelayMs: 400,
          jitter: 0,
          budgetMs: 1000,
          clock,
        }),
      ],
    });
    expect((await caught(() => runAgent(agent, "hi"))).message).toBe("b");
    expect(clock.sleeps).toEqual([400]); // 400 + 800 = 1200 > 1000: no third attempt
    const hinted = new ScriptedChat([err(429, "later", { retryAfterMs: 5000 }), "never"]);
    const clock2 = fakeClock();
    const agent2 = buildReactAgent(hinted, {
      tools: [],
      middleware: [ModelRetryMiddleware({ budgetMs: 1000, clock: clock2 })],
    });
    expect((await caught(() => runAgent(agent2, "hi"))).message).toBe("later");
    expect(clock2.sleeps).toEqual([]);
  });

  it("retryOn replaces the rule; a cancelled run stops waiting", async () => {
    const clock = fakeClock();
    const chat = new ScriptedChat([new TypeError("flaky"), "Done."]);
    const agent = buildReactAgent(chat, {
      tools: [],
      middleware: [
        ModelRetryMiddleware({ retryOn: (e) => e instanceof TypeError, jitter: 0, clock }),
      ],
    });
    expect(await runAgent(agent, "hi")).toBe("Done.");
    expect(clock.sleeps).toEqual([500]);

    const controller = new AbortController();
    const waiting: RetryClock = {
      now: () => 0,
      sleep: (_ms, signal) =>
        new Promise((_, reject) => {
          signal.addEventListener("abort", () => reject(new RunCancelledError("stopped waiting")));
          controller.abort();
        }),
    };
    const slow = buildReactAgent(new ScriptedChat([err(503, "busy"), "never"]), {
      tools: [],
      middleware: [ModelRetryMiddleware({ clock: waiting })],
    });
    const e = await caught(() => slow.invoke(ask("hi"), { signal: controller.signal }));
    expect(e).toBeInstanceOf(RunCancelledError);
  });

  it("with streaming, retries only before the first chunk", async () => {
    const clock = fakeClock();
    const before = new ScriptedChat([err(503, "busy"), "Streamed."]);
    const agent = buildReactAgent(before, {
      tools: [],
      stream: true,
      middleware: [ModelRetryMiddleware({ clock, jitter: 0 })],
    });
    expect(await runAgent(agent, "hi")).toBe("Streamed.");
    expect(clock.sleeps).toEqual([500]);

    let calls = 0;
    const broken: Chat = {
      model: "broken",
      complete: () => Promise.reject(new Error("not used")),
      async *stream() {
        calls++;
        yield { contentDelta: "Half an ans" };
        throw err(503, "stream cut");
      },
    };
    const clock2 = fakeClock();
    const after = buildReactAgent(broken, {
      tools: [],
      stream: true,
      middleware: [ModelRetryMiddleware({ clock: clock2 })],
    });
    expect((await caught(() => runAgent(after, "hi"))).message).toBe("stream cut");
    expect(calls).toBe(1);
    expect(clock2.sleeps).toEqual([]);
  });

  it("each attempt is a chat span; the second has nodestep.attempt", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const tracer = provider.getTracer("test");
    const chat = new ScriptedChat([err(503, "overloaded"), "Done."]);
    const agent = buildReactAgent(chat, {
      tools: [],
      tracer,
      middleware: [ModelRetryMiddleware({ clock: fakeClock() })],
    });
    expect(await runAgent(agent, "hi")).toBe("Done.");
    const spans = exporter.getFinishedSpans().filter((s) => s.name === "chat scripted");
    expect(spans.map((s) => [s.status.code, s.status.message ?? null])).toEqual([
      [2, "overloaded"],
      [0, null],
    ]);
    expect(spans[0]!.attributes["nodestep.attempt"]).toBeUndefined();
    expect(spans[1]!.attributes["nodestep.attempt"]).toBe(2);
  });
});

class FlakyError extends Error {
  override name = "FlakyError";
}

function flakyTool(
  failures: number,
  counter: { n: number },
  make = () => new FlakyError("not yet"),
) {
  return tool(
    ({ q }: { q: string }) => {
      counter.n++;
      if (counter.n <= failures) throw make();
      return `answer to ${q}`;
    },
    { name: "lookup", description: "Look up.", input: z.object({ q: z.string() }) },
  );
}

const callThen = (name: string, args: Record<string, string>, id = "c1") =>
  new ScriptedChat([{ content: null, toolCalls: [{ id, name, arguments: args }] }, "Done."]);

describe("ToolRetryMiddleware", () => {
  it("retries a tool by its policy, with back-off, and emits each retry", async () => {
    const clock = fakeClock();
    const counter = { n: 0 };
    const retry = ToolRetryMiddleware({
      tools: { lookup: { maxAttempts: 3, initialDelayMs: 10, jitter: 0 } },
      clock,
    });
    const chat = callThen("lookup", { q: "x" });
    const agent = buildReactAgent(chat, { tools: [flakyTool(2, counter)], middleware: [retry] });
    const events = await customEvents(agent, "go");
    expect(events).toEqual([
      {
        kind: "tool_retry",
        tool: "lookup",
        toolCallId: "c1",
        attempt: 1,
        delayMs: 10,
        error: { name: "FlakyError", message: "not yet" },
      },
      {
        kind: "tool_retry",
        tool: "lookup",
        toolCallId: "c1",
        attempt: 2,
        delayMs: 20,
        error: { name: "FlakyError", message: "not yet" },
      },
    ]);
    expect(counter.n).toBe(3);
    expect(clock.sleeps).toEqual([10, 20]);
    expect(chat.requests[1]!.messages.at(-1)).toMatchObject({
      type: "tool",
      content: '{"result":"answer to x"}',
    });
  });

  it("after the last attempt the error goes to toolErrors; other classes and tools without a policy run once", async () => {
    const clock = fakeClock();
    const counter = { n: 0 };
    const retry = ToolRetryMiddleware({
      tools: { lookup: { maxAttempts: 2, initialDelayMs: 1, jitter: 0 } },
      clock,
    });
    const chat = callThen("lookup", { q: "x" });
    const agent = buildReactAgent(chat, {
      tools: [flakyTool(5, counter)],
      middleware: [retry],
      toolErrors: "return",
    });
    expect(await runAgent(agent, "go")).toBe("Done.");
    expect(counter.n).toBe(2);
    expect(chat.requests[1]!.messages.at(-1)!.content).toBe("Tool error: FlakyError: not yet");

    const only = { n: 0 };
    const typed = ToolRetryMiddleware({
      tools: { lookup: { retryOn: [TypeError], initialDelayMs: 1 } },
      clock,
    });
    const e = await caught(() =>
      runAgent(
        buildReactAgent(callThen("lookup", { q: "x" }), {
          tools: [flakyTool(5, only)],
          middleware: [typed],
        }),
        "go",
      ),
    );
    expect(e).toBeInstanceOf(ToolExecutionError);
    expect(e.message).toBe('Tool "lookup" failed on call "c1": FlakyError: not yet');
    expect(only.n).toBe(1);

    const none = { n: 0 };
    const other = ToolRetryMiddleware({ tools: { elsewhere: { maxAttempts: 9 } }, clock });
    await caught(() =>
      runAgent(
        buildReactAgent(callThen("lookup", { q: "x" }), {
          tools: [flakyTool(5, none)],
          middleware: [other],
        }),
        "go",
      ),
    );
    expect(none.n).toBe(1);
  });

  it("works through callTool outside a graph", async () => {
    const counter = { n: 0 };
    const clock = fakeClock();
    const ctx = ToolContext.empty({
      middleware: [ToolRetryMiddleware({ default: { initialDelayMs: 7, jitter: 0 }, clock })],
      toolName: "lookup",
    });
    expect(await callTool(flakyTool(2, counter), { q: "z" }, ctx)).toEqual({
      value: "answer to z",
      arguments: { q: "z" },
    });
    expect(counter.n).toBe(3);
    expect(clock.sleeps).toEqual([7, 14]);
  });

  it("never retries a result that fails the output schema", async () => {
    let n = 0;
    const bad = tool(
      () => {
        n++;
        return 7 as unknown as string;
      },
      { name: "bad", description: "Bad.", output: z.string() },
    );
    const agent = buildReactAgent(callThen("bad", {}), {
      tools: [bad],
      middleware: [ToolRetryMiddleware({ default: { maxAttempts: 5 }, clock: fakeClock() })],
    });
    const e = await caught(() => runAgent(agent, "go"));
    expect((e as ToolExecutionError).cause).toBeInstanceOf(ValidationError);
    expect(n).toBe(1);
  });

  it("records each attempt on the tool's span", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const counter = { n: 0 };
    const agent = buildReactAgent(callThen("lookup", { q: "x" }), {
      tools: [flakyTool(1, counter)],
      tracer: provider.getTracer("test"),
      middleware: [ToolRetryMiddleware({ default: { initialDelayMs: 1 }, clock: fakeClock() })],
    });
    expect(await runAgent(agent, "go")).toBe("Done.");
    const span = exporter.getFinishedSpans().find((s) => s.name === "execute_tool lookup")!;
    expect(span.events.map((e) => [e.name, e.attributes])).toEqual([
      [
        "nodestep.attempt",
        {
          "nodestep.attempt": 1,
          "nodestep.attempt.ok": false,
          "exception.type": "FlakyError",
          "exception.message": "not yet",
        },
      ],
      ["nodestep.attempt", { "nodestep.attempt": 2, "nodestep.attempt.ok": true }],
    ]);
  });

  it("a run resumed after a crash does not run (or retry) a call whose result is stored (cold, SQLite reopened)", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "nodestep-retry-")), "t.db");
    const counter = { n: 0 };
    let slowRuns = 0;
    const controller = new AbortController();
    const slow = tool(
      async (_args: Record<string, never>, ctx) => {
        slowRuns++;
        if (slowRuns > 1) return "slow done";
        // First run: the process "dies" while this call is in flight.
        await new Promise((r) => setTimeout(r, 50));
        controller.abort();
        await new Promise((_, reject) =>
          ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason)),
        );
      },
      { name: "slow", description: "Slow." },
    );
    const chat = () =>
      new ScriptedChat([
        {
          content: null,
          toolCalls: [
            { id: "c1", name: "lookup", arguments: { q: "x" } },
            { id: "c2", name: "slow", arguments: {} },
          ],
        },
        "Done.",
      ]);
    const make = (middleware: Middleware[], model = chat()) =>
      buildReactAgent(model, {
        tools: [flakyTool(1, counter), slow],
        stateStore: new SqliteStateStore({ path }),
        middleware,
      });
    const clock = fakeClock();
    const retry = () =>
      ToolRetryMiddleware({ default: { maxAttempts: 3, initialDelayMs: 5, jitter: 0 }, clock });
    const first = make([retry()]);
    const e = await caught(() =>
      first.invoke(ask("go"), { threadId: "t1", signal: controller.signal }),
    );
    expect(e).toBeInstanceOf(RunCancelledError);
    expect(counter.n).toBe(2); // failed once, retried once, result saved
    expect(clock.sleeps).toEqual([5]);

    // A new graph and a new store instance on the same file: the tool step runs again,
    // lookup's stored result answers c1 and only slow runs.
    const resumeChat = new ScriptedChat(["Done."]);
    const second = make([retry()], resumeChat);
    const result = await second.invoke(null, { threadId: "t1" });
    expect(counter.n).toBe(2);
    expect(slowRuns).toBe(2);
    expect(clock.sleeps).toEqual([5]);
    expect(result.state.messages.filter((m) => m.type === "tool").map((m) => m.content)).toEqual([
      '{"result":"answer to x"}',
      '{"result":"slow done"}',
    ]);
    expect(result.state.finalText).toBe("Done.");
  });
});
