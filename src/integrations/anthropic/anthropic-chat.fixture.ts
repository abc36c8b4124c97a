/**
 * Shared setup of the AnthropicChat tests (anthropic-chat*.test.ts): the Messages API's wire
 * format as documented (messages, stream events, error bodies), the replay server, and the
 * conformance scenarios' responder.
 *
 * @module
 */
import { HumanMessage } from "../../chat/messages.js";
import { ChatRequest } from "../../chat/types.js";
import { pieces, server, type WireCall } from "../testing/chat-wire.fixture.js";
import type { ConformanceScenario } from "../testing/conformance.js";
import { type RecordedRequest, type ReplayResponse, sseEvents } from "../testing/replay-server.js";
import { AnthropicChat } from "./index.js";

export {
  collect,
  failure,
  pieces,
  server,
  setUpReplayServer,
  stripRaw,
  type WireCall,
} from "../testing/chat-wire.fixture.js";

// ---- Wire format of the Messages API, as documented ----------------------------------------

/** The model name the documented responses carry. */
export const MODEL = "claude-sonnet-4-6";
/** A message's `usage`, as documented. */
export const USAGE = {
  input_tokens: 2095,
  output_tokens: 503,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  service_tier: "standard",
};

/** A `message` body with these content blocks, ending with `stopReason` (and `extra` fields). */
export function message(
  content: unknown[],
  stopReason: string,
  extra: Record<string, unknown> = {},
) {
  return {
    id: "msg_013Zva2CMHLNnXjNJJKqJ2EF",
    type: "message",
    role: "assistant",
    model: MODEL,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: USAGE,
    ...extra,
  };
}

/** A JSON reply (`status` default 200), compact as the API sends it. */
export function json(
  body: unknown,
  status = 200,
  headers: Record<string, string> = {},
): ReplayResponse {
  return {
    status,
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  };
}

/** A message that answers `text` (`stop_reason: "end_turn"`). */
export const textMessage = (text: string) => message([{ type: "text", text }], "end_turn");
/** A message that calls these tools (after `text`, when given; `stop_reason: "tool_use"`). */
export const toolMessage = (calls: readonly WireCall[], text?: string) =>
  message(
    [
      ...(text ? [{ type: "text", text }] : []),
      // A tool_use block carries parsed input; invalid text cannot arrive this way.
      ...calls.map((c) => ({
        type: "tool_use",
        id: c.id,
        name: c.name,
        input: JSON.parse(c.argumentsJson),
      })),
    ],
    "tool_use",
  );

/** The `ping` event the API sends early in a stream. */
export const PING = 'event: ping\ndata: {"type": "ping"}\n\n';

/** An SSE reply of these events, a `ping` third, then `message_stop` unless `complete` is false. */
export function sse(
  events: Array<{ event: string; data: unknown }>,
  complete = true,
): ReplayResponse {
  const pieces = sseEvents(events);
  pieces.splice(Math.min(2, pieces.length), 0, PING);
  if (complete)
    pieces.push(...sseEvents([{ event: "message_stop", data: { type: "message_stop" } }]));
  return { headers: { "content-type": "text/event-stream; charset=utf-8" }, body: pieces };
}

/** A stream event: `event: <type>`, data `{ type, ...fields }`. */
export const ev = (type: string, fields: Record<string, unknown> = {}) => ({
  event: type,
  data: { type, ...fields },
});

/** The documented `message_start` event. */
export const messageStart = ev("message_start", {
  message: {
    id: "msg_014p7gG3wDgGV9EUtLvnow3U",
    type: "message",
    role: "assistant",
    model: MODEL,
    stop_sequence: null,
    usage: { input_tokens: 472, output_tokens: 2 },
    content: [],
    stop_reason: null,
  },
});

/** The events of text block `index` (6-character `text_delta`s). */
export function textBlock(index: number, text: string) {
  return [
    ev("content_block_start", { index, content_block: { type: "text", text: "" } }),
    ...pieces(text, 6).map((t) =>
      ev("content_block_delta", { index, delta: { type: "text_delta", text: t } }),
    ),
    ev("content_block_stop", { index }),
  ];
}

/** The events of tool_use block `index` (arguments in 5-character `input_json_delta`s). */
export function toolBlock(index: number, call: WireCall) {
  return [
    ev("content_block_start", {
      index,
      content_block: { type: "tool_use", id: call.id, name: call.name, input: {} },
    }),
    ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: "" } }),
    ...pieces(call.argumentsJson, 5).map((p) =>
      ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: p } }),
    ),
    ev("content_block_stop", { index }),
  ];
}

/** The `message_delta` event that ends a message with `stopReason`. */
export const messageDelta = (stopReason: string, extra: Record<string, unknown> = {}) =>
  ev("message_delta", {
    delta: { stop_reason: stopReason, stop_sequence: null, ...extra },
    usage: { output_tokens: 89 },
  });

/** The events of a streamed answer `text`. */
export const textEvents = (text: string) => [
  messageStart,
  ...textBlock(0, text),
  messageDelta("end_turn"),
];
/** The events of streamed tool calls, one block each. */
export const toolEvents = (calls: readonly WireCall[]) => [
  messageStart,
  ...calls.flatMap((c, index) => toolBlock(index, c)),
  messageDelta("tool_use"),
];

/** An error body, as documented: `{ type: "error", error: { type, message }, request_id }`. */
export const errorBody = (type: string, msg: string) => ({
  type: "error",
  error: { type, message: msg },
  request_id: "req_011CSHoEeqs5C35K2UUqR7Fy",
});
/** The documented error bodies by HTTP status (401, 429, 500, 529). */
export const ERRORS: Record<number, unknown> = {
  401: errorBody("authentication_error", "invalid x-api-key"),
  429: errorBody(
    "rate_limit_error",
    "This request would exceed the rate limit for your organization.",
  ),
  500: errorBody("api_error", "Internal server error"),
  529: errorBody("overloaded_error", "Overloaded"),
};
/** The documented error reply of `status` (one of {@link ERRORS}). */
export const httpError = (status: number, headers: Record<string, string> = {}) =>
  json(ERRORS[status], status, headers);

// ---- Setup ---------------------------------------------------------------------------------

/** An `AnthropicChat` on the replay server (`sk-ant-test`, retry delays of 1-5 ms), with these options over it. */
export function makeChat(options: Partial<ConstructorParameters<typeof AnthropicChat>[0]> = {}) {
  return new AnthropicChat({
    model: "claude-sonnet-4-6",
    apiKey: "sk-ant-test",
    baseURL: server.url,
    initialRetryDelayMs: 1,
    maxRetryDelayMs: 5,
    ...options,
  });
}

/** A request of one human message. */
export const ask = () =>
  ChatRequest({ messages: [HumanMessage({ content: "Where is order A-1001?" })] });

/** The signature of the conformance scenarios' thinking blocks. */
export const CONFORMANCE_SIGNATURE =
  "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds+6AP3TIoXY7Hu1gKl0aN3MJABUz0HFa9ifXVbmjC0TFjb0=";

/** A thinking block with its signature, then the answer, as Anthropic sends them. */
export function thinkingMessage(thinking: string, text: string) {
  return message(
    [
      { type: "thinking", thinking, signature: CONFORMANCE_SIGNATURE },
      { type: "text", text },
    ],
    "end_turn",
  );
}

/** The events of a streamed thinking block with its signature, then the answer `text`. */
export function thinkingEvents(thinking: string, text: string) {
  return [
    messageStart,
    ev("content_block_start", { index: 0, content_block: { type: "thinking", thinking: "" } }),
    ...pieces(thinking, 12).map((t) =>
      ev("content_block_delta", { index: 0, delta: { type: "thinking_delta", thinking: t } }),
    ),
    ev("content_block_delta", {
      index: 0,
      delta: { type: "signature_delta", signature: CONFORMANCE_SIGNATURE },
    }),
    ev("content_block_stop", { index: 0 }),
    ...textBlock(1, text),
    messageDelta("end_turn"),
  ];
}

/** The replay server's answer to a conformance scenario, as JSON or SSE as the request asks. */
export function scenarioResponder(scenario: ConformanceScenario) {
  return (req: RecordedRequest): ReplayResponse => {
    const streaming = (req.json as { stream?: boolean } | null)?.stream === true;
    switch (scenario.kind) {
      case "text":
        return streaming ? sse(textEvents(scenario.content)) : json(textMessage(scenario.content));
      case "toolCalls":
        if (streaming) return sse(toolEvents(scenario.calls));
        // Invalid argument text can only reach a client through a stream; a JSON answer holds
        // parsed `input`, so replay the invalid case as a string input, which is not an object.
        return json(
          message(
            scenario.calls.map((c) => {
              let input: unknown;
              try {
                input = JSON.parse(c.argumentsJson);
              } catch {
                input = c.argumentsJson;
              }
              return { type: "tool_use", id: c.id, name: c.name, input };
            }),
            "tool_use",
          ),
        );
      case "reasoning":
        return streaming
          ? sse(thinkingEvents(scenario.thinking, scenario.content))
          : json(thinkingMessage(scenario.thinking, scenario.content));
      case "httpError":
        return httpError(scenario.status);
      case "stall":
        return streaming
          ? {
              ...sse([messageStart, ...textBlock(0, scenario.content).slice(0, 2)], false),
              hang: true,
            }
          : { hang: true };
    }
  };
}
