/**
 * The conformance suite of the {@link Chat} interface: one set of vitest tests that every chat
 * integration, built in or user-written, should pass.
 *
 * @module
 */
import { describe, expect, it } from "vitest";
import { assembleStream } from "../../chat/assemble-stream.js";
import { HumanMessage, SystemMessage } from "../../chat/messages.js";
import { ReasoningPartSchema, type Usage } from "../../chat/parts.js";
import { USAGE_TOKEN_KEYS } from "../../chat/schemas.js";
import type { Chat, ChatRequest, ChatResponseInit, ChatStreamChunk } from "../../chat/types.js";
import { ChatRequest as makeRequest, ChatResponse as normalize } from "../../chat/types.js";
import { ModelProviderError, RunCancelledError } from "../../errors/index.js";
import { describePartsConformance, type PartsConformanceOptions } from "./conformance-parts.js";

/**
 * What the model behind the chat must answer in one test. The harness (`makeChat`) arranges
 * its backend (a replay server, a fake client…) so that the next call, streamed or not, gets it.
 *
 * - `text`: answer with `content` and finish normally, reporting usage.
 * - `toolCalls`: call these tools in one turn (in this order). `argumentsJson` is the argument
 *   text the model produced; it may be invalid JSON, which must give `argumentsError`.
 * - `httpError`: fail with this HTTP status, on every attempt.
 * - `stall`: start answering with `content`, then send nothing more and keep the connection open.
 * - `reasoning`: reason `thinking` (the readable text, with the provider's opaque data where it
 *   has some, such as Anthropic's signature), then answer `content` and finish normally. Only
 *   played with {@link ConformanceOptions.parts}, unless its `reasoning` is `"none"`.
 */
export type ConformanceScenario =
  | { kind: "text"; content: string }
  | {
      kind: "toolCalls";
      calls: ReadonlyArray<{ id: string; name: string; argumentsJson: string }>;
    }
  | { kind: "httpError"; status: number }
  | { kind: "stall"; content: string }
  | { kind: "reasoning"; thinking: string; content: string };

/** Options of {@link describeChatConformance}. */
export interface ConformanceOptions {
  /** The provider gives tool-call ids, so they must come back unchanged; `false` when the integration makes its own (Ollama). Default `true`. */
  providerToolCallIds?: boolean;
  /** The provider can send argument text that is not JSON; `false` when it sends parsed objects (Ollama). Default `true`. */
  malformedArguments?: boolean;
  /** How long a cancelled call may take to stop, in ms; default 2000. */
  cancelWithinMs?: number;
  /**
   * Run the scenarios beyond text: images and a PDF in a user message, an image in a tool
   * result (each sent, or refused with `UnsupportedPartError` where the provider cannot take
   * it), and reasoning returned and sent back on the next turn. Default none: they are not run
   * (a harness written before them need not play the `reasoning` scenario).
   */
  parts?: PartsConformanceOptions;
}

const KNOWN_CHUNK_KEYS = new Set([
  "contentDelta",
  "contentPart",
  "reasoningDelta",
  "responseMetadata",
  "refusalDelta",
  "toolCallDelta",
  "finishReason",
  "usage",
  "model",
  "raw",
]);

const USAGE_KEYS: ReadonlySet<string> = new Set([...USAGE_TOKEN_KEYS, "raw"]);

/** Usage in the one shape: only its keys, token counts non-negative integers, `raw` an object. */
function expectUsageShape(usage: Usage): void {
  for (const [key, value] of Object.entries(usage)) {
    expect(USAGE_KEYS.has(key), `usage key ${key}`).toBe(true);
    if (key === "raw") expect(typeof value === "object" && value !== null, "usage.raw").toBe(true);
    else expect(Number.isInteger(value) && (value as number) >= 0, `usage.${key}`).toBe(true);
  }
}

const TOOLS: ChatRequest["tools"] = [
  {
    name: "get_order_status",
    description: "Look up the shipping status of an order.",
    inputSchema: {
      type: "object",
      properties: { orderId: { type: "string" } },
      required: ["orderId"],
      additionalProperties: false,
    },
  },
];

function request(): ChatRequest {
  return makeRequest({
    messages: [
      SystemMessage({ content: "You answer questions about orders." }),
      HumanMessage({ content: "Where is order A-1001?" }),
    ],
    tools: TOOLS,
  });
}

async function collect(chunks: AsyncIterable<ChatStreamChunk>): Promise<ChatStreamChunk[]> {
  const out: ChatStreamChunk[] = [];
  for await (const chunk of chunks) out.push(chunk);
  return out;
}

function withoutRaw(response: ChatResponseInit): unknown {
  const { raw: _raw, ...rest } = normalize(response);
  return rest;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  throw new Error("expected the call to fail, but it succeeded");
}

function isCancellation(e: unknown): boolean {
  return e instanceof RunCancelledError || (e instanceof Error && e.name === "AbortError");
}

/**
 * Define a vitest `describe` block that checks `makeChat`'s chat model against the {@link Chat}
 * contract: text answers and parallel tool calls through `complete` and `stream` (the stream
 * assembling into the same response), invalid argument text kept as `argumentsError`, HTTP
 * 401/429/500 as `ModelProviderError` with `status` and `retryable`, cancellation through an
 * `AbortSignal` before and during a call, and JSON-safe responses. With `options.parts`, also
 * content parts and reasoning (see {@link PartsConformanceOptions}).
 *
 * The contract it checks: a text answer has `finishReason: "stop"`, a turn with tool calls
 * `"tool_calls"`; `usage` is a JSON object; stream chunks use only the `ChatStreamChunk`
 * fields; a cancelled call rejects with `RunCancelledError` (or an `AbortError`) within
 * `cancelWithinMs`.
 *
 * @param name - name of the block, such as `"OpenAIChat"`.
 * @param makeChat - builds a chat model whose next call answers as the scenario says; set a
 *   small `maxRetries` or short retry delays so that error scenarios end fast.
 * @example
 * ```ts
 * import { describeChatConformance } from "nodestep/testing";
 * describeChatConformance("MyChat", (scenario) => new MyChat({ fake: scenario }));
 * ```
 */
export function describeChatConformance(
  name: string,
  makeChat: (scenario: ConformanceScenario) => Chat | Promise<Chat>,
  options: ConformanceOptions = {},
): void {
  const providerIds = options.providerToolCallIds ?? true;
  const malformed = options.malformedArguments ?? true;
  const cancelWithinMs = options.cancelWithinMs ?? 2000;
  const calls = [
    { id: "call_order_1", name: "get_order_status", argumentsJson: '{"orderId":"A-1001"}' },
    { id: "call_order_2", name: "get_order_status", argumentsJson: '{"orderId":"B-2002"}' },
  ] as const;

  describe(`Chat conformance: ${name}`, () => {
    it("has a model name", async () => {
      const chat = await makeChat({ kind: "text", content: "unused" });
      expect(typeof chat.model).toBe("string");
      expect(chat.model.length).toBeGreaterThan(0);
    });

    it("complete: answers text with finishReason stop and JSON usage", async () => {
      const chat = await makeChat({ kind: "text", content: "Order A-1001 has shipped." });
      const response = normalize(await chat.complete(request()));
      expect(response.content).toBe("Order A-1001 has shipped.");
      expect(response.refusal).toBeNull();
      expect(response.toolCalls).toEqual([]);
      expect(response.finishReason).toBe("stop");
      expect(JSON.parse(JSON.stringify(response.usage))).toEqual(response.usage);
      expectUsageShape(response.usage);
      expect(Array.isArray(response.reasoning)).toBe(true);
      for (const r of response.reasoning) expect(ReasoningPartSchema.parse(r)).toEqual(r);
      expect(JSON.parse(JSON.stringify(withoutRaw(response)))).toEqual(withoutRaw(response));
    });

    it("stream: yields content deltas that assemble into the same answer", async () => {
      const chat = await makeChat({ kind: "text", content: "Order A-1001 has shipped." });
      const chunks = await collect(chat.stream(request()));
      for (const chunk of chunks) {
        for (const key of Object.keys(chunk)) expect(KNOWN_CHUNK_KEYS.has(key), key).toBe(true);
        if (chunk.usage != null) expectUsageShape(chunk.usage);
      }
      expect(chunks.map((c) => c.contentDelta ?? "").join("")).toBe("Order A-1001 has shipped.");
      expect(chunks.some((c) => c.toolCallDelta != null)).toBe(false);
      const assembled = await assembleStream(
        (async function* () {
          yield* chunks;
        })(),
      );
      expect(assembled.content).toBe("Order A-1001 has shipped.");
      expect(assembled.toolCalls).toEqual([]);
      expect(assembled.finishReason).toBe("stop");
    });

    for (const mode of ["complete", "stream"] as const) {
      it(`${mode}: returns parallel tool calls in order with parsed arguments`, async () => {
        const chat = await makeChat({ kind: "toolCalls", calls });
        const response =
          mode === "complete"
            ? normalize(await chat.complete(request()))
            : await assembleStream(chat.stream(request()));
        expect(response.finishReason).toBe("tool_calls");
        expect(
          response.toolCalls.map(({ name, arguments: a, argumentsError }) => ({
            name,
            a,
            argumentsError,
          })),
        ).toEqual([
          { name: "get_order_status", a: { orderId: "A-1001" }, argumentsError: null },
          { name: "get_order_status", a: { orderId: "B-2002" }, argumentsError: null },
        ]);
        const ids = response.toolCalls.map((c) => c.id);
        if (providerIds) expect(ids).toEqual(["call_order_1", "call_order_2"]);
        for (const id of ids) expect(id).toMatch(/\S/);
        expect(new Set(ids).size).toBe(2);
      });

      if (malformed) {
        it(`${mode}: keeps invalid argument text as argumentsError instead of throwing`, async () => {
          const chat = await makeChat({
            kind: "toolCalls",
            calls: [
              { id: "call_bad", name: "get_order_status", argumentsJson: '{"orderId": "A-1' },
            ],
          });
          const response =
            mode === "complete"
              ? normalize(await chat.complete(request()))
              : await assembleStream(chat.stream(request()));
          expect(response.toolCalls).toHaveLength(1);
          const [call] = response.toolCalls;
          expect(call?.name).toBe("get_order_status");
          expect(call?.arguments).toEqual({});
          expect(call?.argumentsError).toMatch(/\S/);
        });
      }

      for (const [status, retryable] of [
        [401, false],
        [429, true],
        [500, true],
      ] as const) {
        it(`${mode}: HTTP ${status} raises ModelProviderError(status ${status}, retryable ${retryable})`, async () => {
          const chat = await makeChat({ kind: "httpError", status });
          const error = await rejection(
            mode === "complete" ? chat.complete(request()) : collect(chat.stream(request())),
          );
          expect(error).toBeInstanceOf(ModelProviderError);
          expect((error as ModelProviderError).status).toBe(status);
          expect((error as ModelProviderError).retryable).toBe(retryable);
          expect((error as ModelProviderError).provider).toMatch(/\S/);
        });
      }

      it(`${mode}: a signal that already fired cancels the call`, async () => {
        const chat = await makeChat({ kind: "text", content: "never read" });
        const controller = new AbortController();
        controller.abort();
        const error = await rejection(
          mode === "complete"
            ? chat.complete(request(), { signal: controller.signal })
            : collect(chat.stream(request(), { signal: controller.signal })),
        );
        expect(isCancellation(error), String(error)).toBe(true);
      });
    }

    it("complete: a signal stops a call that is waiting for the model", async () => {
      const chat = await makeChat({ kind: "stall", content: "Order" });
      const controller = new AbortController();
      const started = Date.now();
      setTimeout(() => controller.abort(), 100);
      const error = await rejection(chat.complete(request(), { signal: controller.signal }));
      expect(isCancellation(error), String(error)).toBe(true);
      expect(Date.now() - started).toBeLessThan(cancelWithinMs);
    });

    it("stream: a signal stops the stream in the middle", async () => {
      const chat = await makeChat({ kind: "stall", content: "Order" });
      const controller = new AbortController();
      const seen: ChatStreamChunk[] = [];
      let started = 0;
      const error = await rejection(
        (async () => {
          for await (const chunk of chat.stream(request(), { signal: controller.signal })) {
            seen.push(chunk);
            if (chunk.contentDelta && started === 0) {
              started = Date.now();
              setTimeout(() => controller.abort(), 50);
            }
          }
        })(),
      );
      expect(isCancellation(error), String(error)).toBe(true);
      expect(seen.map((c) => c.contentDelta ?? "").join("")).toBe("Order");
      expect(Date.now() - started).toBeLessThan(cancelWithinMs);
    });

    if (options.parts) describePartsConformance(makeChat, options.parts);
  });
}
