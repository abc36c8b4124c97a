/**
 * Shared setup of the OpenAIChat tests (openai-chat*.test.ts): the Chat Completions wire
 * format as documented (completions, stream chunks, error bodies), the replay server, and the
 * conformance scenarios' responder.
 *
 * @module
 */
import { HumanMessage } from "../../chat/messages.js";
import { ChatRequest } from "../../chat/types.js";
import { pieces, server, type WireCall } from "../testing/chat-wire.fixture.js";
import type { ConformanceScenario } from "../testing/conformance.js";
import { type RecordedRequest, type ReplayResponse, sseEvents } from "../testing/replay-server.js";
import { OpenAIChat } from "./index.js";

export {
  collect,
  failure,
  pieces,
  server,
  setUpReplayServer,
  stripRaw,
  type WireCall,
} from "../testing/chat-wire.fixture.js";

// ---- Wire format of the Chat Completions API, as documented -------------------------------

/** The model name the documented responses carry. */
export const MODEL = "gpt-4o-mini-2024-07-18";
/** The documented responses' `created` time, in seconds since the epoch. */
export const CREATED = 1741569952;
/** A completion's `usage`, as documented (token counts with their details). */
export const USAGE = {
  prompt_tokens: 19,
  completion_tokens: 10,
  total_tokens: 29,
  prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
  completion_tokens_details: {
    reasoning_tokens: 0,
    audio_tokens: 0,
    accepted_prediction_tokens: 0,
    rejected_prediction_tokens: 0,
  },
};

/** {@link USAGE} in the one usage shape. */
export const MAPPED_USAGE = {
  inputTokens: 19,
  outputTokens: 10,
  totalTokens: 29,
  cachedInputTokens: 0,
  reasoningTokens: 0,
  raw: USAGE,
};

/** A `chat.completion` body: one choice whose assistant `message` has these fields, ending with `finishReason`. */
export function completion(message: Record<string, unknown>, finishReason: string) {
  return {
    id: "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
    object: "chat.completion",
    created: CREATED,
    model: MODEL,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: null, refusal: null, annotations: [], ...message },
        logprobs: null,
        finish_reason: finishReason,
      },
    ],
    usage: USAGE,
    service_tier: "default",
    system_fingerprint: "fp_06737a9306",
  };
}

/** A JSON reply (`status` default 200), pretty-printed as the API sends it. */
export function json(
  body: unknown,
  status = 200,
  headers: Record<string, string> = {},
): ReplayResponse {
  return {
    status,
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body, null, 2),
  };
}

/** A completion that answers `content` (`finish_reason: "stop"`). */
export const textCompletion = (content: string) => completion({ content }, "stop");
/** A completion that calls these tools (`finish_reason: "tool_calls"`). */
export const toolCompletion = (calls: readonly WireCall[]) =>
  completion(
    {
      tool_calls: calls.map((c) => ({
        id: c.id,
        type: "function",
        function: { name: c.name, arguments: c.argumentsJson },
      })),
    },
    "tool_calls",
  );

/** A `chat.completion.chunk` with one choice's `delta` (and `finishReason`, default `null`). */
export function chunk(delta: Record<string, unknown>, finishReason: string | null = null) {
  return {
    id: "chatcmpl-123",
    object: "chat.completion.chunk",
    created: CREATED,
    model: MODEL,
    service_tier: "default",
    system_fingerprint: "fp_44709d6fcb",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    usage: null,
  };
}
/** The last chunk of a stream with `stream_options.include_usage`: no choices, the usage. */
export const usageChunk = {
  id: "chatcmpl-123",
  object: "chat.completion.chunk",
  created: CREATED,
  model: MODEL,
  service_tier: "default",
  system_fingerprint: "fp_44709d6fcb",
  choices: [],
  usage: USAGE,
};

/** An SSE reply of these `data:` payloads, then `data: [DONE]` unless `done` is false. */
export function sse(datas: unknown[], done = true): ReplayResponse {
  return {
    headers: { "content-type": "text/event-stream; charset=utf-8" },
    body: [...sseEvents(datas.map((data) => ({ data }))), ...(done ? ["data: [DONE]\n\n"] : [])],
  };
}

/** The chunks of a streamed answer `content` (6-character deltas), then the usage chunk. */
export function textEvents(content: string): unknown[] {
  return [
    chunk({ role: "assistant", content: "", refusal: null }),
    ...pieces(content, 6).map((p) => chunk({ content: p })),
    chunk({}, "stop"),
    usageChunk,
  ];
}

/** The chunks of streamed tool calls (arguments in 4-character deltas), then the usage chunk. */
export function toolEvents(calls: readonly WireCall[]): unknown[] {
  const events: unknown[] = [chunk({ role: "assistant", content: null })];
  calls.forEach((c, index) => {
    events.push(
      chunk({
        tool_calls: [
          { index, id: c.id, type: "function", function: { name: c.name, arguments: "" } },
        ],
      }),
    );
    for (const p of pieces(c.argumentsJson, 4))
      events.push(chunk({ tool_calls: [{ index, function: { arguments: p } }] }));
  });
  events.push(chunk({}, "tool_calls"), usageChunk);
  return events;
}

/** An error body, as documented: `{ error: { message, type, param: null, code } }`. */
export const errorBody = (message: string, type: string, code: string | null) => ({
  error: { message, type, param: null, code },
});
/** The documented body of a 401 (bad API key). */
export const ERR_401 = errorBody(
  "Incorrect API key provided: sk-test. You can find your API key at https://platform.openai.com/account/api-keys.",
  "invalid_request_error",
  "invalid_api_key",
);
/** The documented body of a 429 (rate limit). */
export const ERR_429 = errorBody(
  "Rate limit reached for gpt-4o-mini in organization org-test on requests per min (RPM): Limit 3, Used 3, Requested 1.",
  "requests",
  "rate_limit_exceeded",
);
/** The documented body of a 500. */
export const ERR_500 = errorBody(
  "The server had an error while processing your request. Sorry about that!",
  "server_error",
  null,
);
/** The documented error reply of `status` (401, 429, else 500's body). */
export const httpError = (status: number, headers: Record<string, string> = {}) =>
  json(status === 401 ? ERR_401 : status === 429 ? ERR_429 : ERR_500, status, headers);

// ---- Setup ---------------------------------------------------------------------------------

/** An `OpenAIChat` on the replay server (`sk-test`, retry delays of 1-5 ms), with these options over it. */
export function makeChat(options: Partial<ConstructorParameters<typeof OpenAIChat>[0]> = {}) {
  return new OpenAIChat({
    model: "gpt-4o-mini",
    apiKey: "sk-test",
    baseURL: `${server.url}/v1`,
    initialRetryDelayMs: 1,
    maxRetryDelayMs: 5,
    ...options,
  });
}

/** A request of one human message. */
export const ask = (content = "Where is order A-1001?") =>
  ChatRequest({ messages: [HumanMessage({ content })] });

/** The replay server's answer to a conformance scenario, as JSON or SSE as the request asks. */
export function scenarioResponder(scenario: ConformanceScenario) {
  return (req: RecordedRequest): ReplayResponse => {
    const streaming = (req.json as { stream?: boolean } | null)?.stream === true;
    switch (scenario.kind) {
      case "text":
        return streaming
          ? sse(textEvents(scenario.content))
          : json(textCompletion(scenario.content));
      case "toolCalls":
        return streaming ? sse(toolEvents(scenario.calls)) : json(toolCompletion(scenario.calls));
      case "reasoning":
        // reasoning_content, as OpenAI-compatible servers (DeepSeek, vLLM) send it.
        return streaming
          ? sse([
              chunk({ role: "assistant", content: null, reasoning_content: "" }),
              ...pieces(scenario.thinking, 12).map((p) => chunk({ reasoning_content: p })),
              ...textEvents(scenario.content).slice(1),
            ])
          : json(
              completion(
                { content: scenario.content, reasoning_content: scenario.thinking },
                "stop",
              ),
            );
      case "httpError":
        return httpError(scenario.status);
      case "stall":
        return streaming
          ? { ...sse([chunk({ role: "assistant", content: scenario.content })], false), hang: true }
          : { hang: true };
    }
  };
}
