/**
 * The part of the {@link Chat} conformance suite that sends more than text: a user message
 * with an image and one with a PDF, a tool result with an image, and the model's reasoning
 * sent back on the next turn.
 *
 * @module
 */
import { describe, expect, it } from "vitest";
import { assembleStream } from "../../chat/assemble-stream.js";
import {
  AIMessage,
  HumanMessage,
  type Message,
  SystemMessage,
  ToolMessage,
} from "../../chat/messages.js";
import { type ContentPart, type ReasoningPart, ReasoningPartSchema } from "../../chat/parts.js";
import type { Chat, ChatRequest, ChatResponse, ChatStreamChunk } from "../../chat/types.js";
import { ChatRequest as makeRequest, ChatResponse as normalize } from "../../chat/types.js";
import { UnsupportedPartError } from "../../errors/index.js";
import type { JsonValue } from "../../json/index.js";

/** A part the conformance suite sends: an image in a user message, a PDF in a user message, an image in a tool result. */
export type ConformancePart = "image" | "file" | "toolResultImage";

/**
 * What the provider does with the model's reasoning:
 * - `"roundTrip"`: answers carry reasoning parts, and an `AIMessage` with them sends their text
 *   and data back on the next turn (Anthropic thinking, OpenAI Responses, Ollama);
 * - `"receiveOnly"`: answers carry reasoning parts, but the wire has no field to send them back
 *   in (Chat Completions' `reasoning_content`): they must not be sent;
 * - `"none"`: the provider has no reasoning; the reasoning scenario is not run.
 */
export type ReasoningSupport = "roundTrip" | "receiveOnly" | "none";

/** Options of the parts scenarios ({@link ConformanceOptions.parts}). */
export interface PartsConformanceOptions {
  /** The `provider` the integration's errors and reasoning parts carry, such as `"openai"`. */
  provider: string;
  /**
   * The `provider` its reasoning parts carry, where it differs from the errors' (`fromAISdk`:
   * errors `"google.generative-ai"`, reasoning `"ai-sdk/google.generative-ai"`). Default `provider`.
   */
  reasoningProvider?: string;
  /**
   * The body the backend received in its latest call, or `undefined` before any (for a
   * {@link ReplayServer}: `() => server.requests.at(-1)?.json`). With it, the suite checks
   * that the base64 data of each part it sends, and the text and every string of the data of
   * reasoning sent back, are values of that body (the string itself, or a `data:` URL of the
   * base64; not text inside a longer string, as parts written out as JSON into a tool
   * message's text would be), that reasoning is not sent where it must not be (nor anywhere
   * in the body's text), and that a call refused for an unsupported part sent nothing. Without
   * it, only the answers are checked.
   */
  lastRequestBody?: () => unknown;
  /**
   * The parts the provider cannot take: each call with one must reject with
   * `UnsupportedPartError` whose `partType`, `path` and `provider` name it, and send nothing.
   * Default `[]`: every part must be sent.
   */
  unsupported?: readonly ConformancePart[];
  /** What the provider does with reasoning; default `"roundTrip"`. */
  reasoning?: ReasoningSupport;
}

/** The scenarios the parts tests play: a text answer, or an answer after reasoning. */
type PlayedScenario =
  | { kind: "text"; content: string }
  | { kind: "reasoning"; thinking: string; content: string };

/** A 1×1 PNG (base64). */
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
/** A minimal PDF (base64). */
const PDF = "JVBERi0xLjQKJcfsj6IKdHJhaWxlcgo8PD4+CiUlRU9GCg==";
const SYSTEM = "You answer questions about orders.";
const THINKING = "The user asks about A-1001; its status is shipped.";
const ANSWER = "Order A-1001 has shipped.";

const CHART_TOOL: ChatRequest["tools"] = [
  {
    name: "render_chart",
    description: "Render the month's sales as a chart image.",
    inputSchema: {
      type: "object",
      properties: { month: { type: "string" } },
      required: ["month"],
      additionalProperties: false,
    },
  },
];

interface PartCase {
  part: ConformancePart;
  title: string;
  request: ChatRequest;
  /** The part the case sends, its type and where it is. */
  sent: ContentPart;
  path: string;
  /** What must be in the body when the part is sent. */
  payload: string;
}

function partCases(): PartCase[] {
  const image: ContentPart = { type: "image", data: PNG, mediaType: "image/png" };
  const file: ContentPart = {
    type: "file",
    data: PDF,
    mediaType: "application/pdf",
    name: "invoice.pdf",
  };
  const human = (part: ContentPart, text: string) =>
    makeRequest({
      messages: [
        SystemMessage({ content: SYSTEM }),
        HumanMessage({ content: [{ type: "text", text }, part] }),
      ],
    });
  return [
    {
      part: "image",
      title: "a user message with an image (base64 PNG)",
      request: human(image, "Which order is on this label?"),
      sent: image,
      path: "messages[1].content[1]",
      payload: PNG,
    },
    {
      part: "file",
      title: 'a user message with a PDF file ("invoice.pdf")',
      request: human(file, "Which order is this invoice for?"),
      sent: file,
      path: "messages[1].content[1]",
      payload: PDF,
    },
    {
      part: "toolResultImage",
      title: "a tool result with an image",
      request: makeRequest({
        messages: [
          SystemMessage({ content: SYSTEM }),
          HumanMessage({ content: "Chart March sales." }),
          AIMessage({
            toolCalls: [
              {
                id: "call_chart_1",
                name: "render_chart",
                arguments: { month: "march" },
                argumentsError: null,
              },
            ],
          }),
          ToolMessage({
            toolCallId: "call_chart_1",
            name: "render_chart",
            content: [{ type: "text", text: "The chart:" }, image],
          }),
        ],
        tools: CHART_TOOL,
      }),
      sent: image,
      path: "messages[3].content[1]",
      payload: PNG,
    },
  ];
}

/** A string as it appears inside JSON text. */
const inJson = (s: string) => JSON.stringify(s).slice(1, -1);

/**
 * Whether the body holds `value` as a value of its own: a string equal to it, or, for base64
 * data, a `data:` URL of it. (Not inside a longer text, such as parts written out as JSON
 * into a tool message's text, which a model reads as text.)
 */
function holds(body: unknown, value: string): boolean {
  const seen = strings(body as JsonValue).some(
    (s) => s === value || (s.startsWith("data:") && s.endsWith(`;base64,${value}`)),
  );
  return seen;
}

/** Every string in a JSON value, keys excluded. */
function strings(value: JsonValue | undefined): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === "object") return Object.values(value).flatMap(strings);
  return [];
}

async function collect(chunks: AsyncIterable<ChatStreamChunk>): Promise<ChatStreamChunk[]> {
  const out: ChatStreamChunk[] = [];
  for await (const chunk of chunks) out.push(chunk);
  return out;
}

async function replay(chunks: ChatStreamChunk[]): Promise<ChatResponse> {
  return assembleStream(
    (async function* () {
      yield* chunks;
    })(),
  );
}

async function call(chat: Chat, request: ChatRequest, mode: "complete" | "stream") {
  return mode === "complete"
    ? normalize(await chat.complete(request))
    : replay(await collect(chat.stream(request)));
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  throw new Error("expected the call to fail, but it succeeded");
}

/** The first turn of the reasoning scenario. */
function first(): ChatRequest {
  return makeRequest({
    messages: [
      SystemMessage({ content: SYSTEM }),
      HumanMessage({ content: "Where is order A-1001?" }),
    ],
  });
}

/** The next turn after an answer with reasoning: the answer, with its reasoning, then a question. */
function nextTurn(reasoning: ReasoningPart[]): ChatRequest {
  return makeRequest({
    messages: [
      SystemMessage({ content: SYSTEM }),
      HumanMessage({ content: "Where is order A-1001?" }),
      AIMessage({ content: ANSWER, reasoning }),
      HumanMessage({ content: "And order B-2002?" }),
    ] satisfies Message[],
  });
}

/**
 * The parts scenarios, inside the suite's `describe` block.
 * @param makeChat - as for `describeChatConformance`, called with the text and reasoning scenarios.
 */
export function describePartsConformance(
  makeChat: (scenario: PlayedScenario) => Chat | Promise<Chat>,
  options: PartsConformanceOptions,
): void {
  const body = options.lastRequestBody;
  const bodyText = () => JSON.stringify(body?.() ?? null);
  const unsupported = new Set(options.unsupported ?? []);
  const reasoning = options.reasoning ?? "roundTrip";

  describe("content parts and reasoning", () => {
    for (const c of partCases()) {
      for (const mode of ["complete", "stream"] as const) {
        if (unsupported.has(c.part)) {
          it(`${mode}: ${c.title} raises UnsupportedPartError naming the part, its path and the provider; nothing is sent`, async () => {
            const chat = await makeChat({ kind: "text", content: ANSWER });
            const before = body?.();
            const error = await rejection(
              mode === "complete" ? chat.complete(c.request) : collect(chat.stream(c.request)),
            );
            expect(error).toBeInstanceOf(UnsupportedPartError);
            const e = error as UnsupportedPartError;
            expect([e.partType, e.path, e.provider, e.retryable]).toEqual([
              c.sent.type,
              c.path,
              options.provider,
              false,
            ]);
            expect(e.message).toContain(`${c.sent.type} part`);
            expect(e.message).toContain(c.path);
            if (body) expect(body()).toBe(before);
          });
        } else {
          it(`${mode}: sends ${c.title}`, async () => {
            const chat = await makeChat({ kind: "text", content: ANSWER });
            const response = await call(chat, c.request, mode);
            expect(response.content).toBe(ANSWER);
            expect(response.finishReason).toBe("stop");
            if (body) expect(holds(body(), c.payload), "the part's data in the body").toBe(true);
          });
        }
      }
    }

    if (reasoning !== "none") {
      const scenario = { kind: "reasoning", thinking: THINKING, content: ANSWER } as const;

      it("complete: returns the model's reasoning as reasoning parts, apart from the answer", async () => {
        const chat = await makeChat(scenario);
        const response = normalize(await chat.complete(first()));
        expect(response.content).toBe(ANSWER);
        expect(response.finishReason).toBe("stop");
        expect(response.reasoning.map((r) => r.text).join("")).toBe(THINKING);
        for (const r of response.reasoning) {
          expect(ReasoningPartSchema.parse(r)).toEqual(r);
          expect(r.provider).toBe(options.reasoningProvider ?? options.provider);
        }
        expect(JSON.parse(JSON.stringify(response.reasoning))).toEqual(response.reasoning);
      });

      it("stream: reasoning comes as reasoningDelta chunks, never as content, and assembles into the same parts as complete", async () => {
        const complete = normalize(await (await makeChat(scenario)).complete(first()));
        const chunks = await collect((await makeChat(scenario)).stream(first()));
        const thinking = chunks.filter((c) => c.reasoningDelta != null);
        expect(thinking.length).toBeGreaterThan(0);
        for (const c of thinking) expect(c.contentDelta ?? "").toBe("");
        expect(chunks.map((c) => c.contentDelta ?? "").join("")).toBe(ANSWER);
        const assembled = await replay(chunks);
        expect(assembled.content).toBe(ANSWER);
        expect(assembled.reasoning).toEqual(complete.reasoning);
      });

      it(
        reasoning === "roundTrip"
          ? "sends the reasoning of the previous answer back on the next turn, text and data unchanged"
          : "does not send reasoning back: the provider has no field for it",
        async () => {
          const answered = normalize(await (await makeChat(scenario)).complete(first()));
          const chat = await makeChat({ kind: "text", content: "Order B-2002 is on its way." });
          const response = normalize(await chat.complete(nextTurn(answered.reasoning)));
          expect(response.content).toBe("Order B-2002 is on its way.");
          if (!body) return;
          const sent = bodyText();
          if (reasoning === "roundTrip") {
            for (const r of answered.reasoning) {
              const got = body();
              if (r.text !== "") expect(holds(got, r.text), `"${r.text}" in the body`).toBe(true);
              for (const s of strings(r.data ?? undefined))
                expect(holds(got, s), `"${s}" in the body`).toBe(true);
            }
          } else {
            expect(sent).not.toContain(inJson(THINKING));
          }
        },
      );
    }

    if (body) {
      it("does not send another provider's reasoning", async () => {
        const chat = await makeChat({ kind: "text", content: ANSWER });
        const foreign: ReasoningPart = {
          type: "reasoning",
          text: "A thought made by another provider.",
          provider: `not-${options.reasoningProvider ?? options.provider}`,
          data: { signature: "c2lnbmF0dXJlLW9mLWFub3RoZXItcHJvdmlkZXI=" },
        };
        await chat.complete(nextTurn([foreign]));
        const sent = bodyText();
        expect(sent).not.toContain(inJson(foreign.text));
        expect(sent).not.toContain("c2lnbmF0dXJlLW9mLWFub3RoZXItcHJvdmlkZXI=");
        expect(sent).toContain(inJson("And order B-2002?"));
      });
    }
  });
}
