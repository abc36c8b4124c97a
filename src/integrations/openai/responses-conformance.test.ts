/**
 * The Chat conformance suite on OpenAIChat with `api: "responses"`, parts and reasoning
 * included, through the official SDK against a local server replaying the Responses API's
 * documented JSON and SSE bodies.
 */
import { afterAll, beforeAll } from "vitest";
import { type ConformanceScenario, describeChatConformance } from "../testing/conformance.js";
import {
  type RecordedRequest,
  type ReplayResponse,
  ReplayServer,
  sseEvents,
} from "../testing/replay-server.js";
import { OpenAIChat } from "./index.js";

const MODEL = "o4-mini-2025-04-16";
const USAGE = {
  input_tokens: 36,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 87,
  output_tokens_details: { reasoning_tokens: 64 },
  total_tokens: 123,
};
const ENCRYPTED = "gAAAAABodsx0Y29uZm9ybWFuY2UgcmVhc29uaW5nIGl0ZW0gZGF0YQ==";

function response(output: unknown[], status = "completed") {
  return {
    id: "resp_67ccd3a9da748190baa7f1570fe91ac604becb25c45c1d41",
    object: "response",
    created_at: 1741476777,
    status,
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    model: MODEL,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: "medium", summary: "auto" },
    store: false,
    temperature: 1.0,
    text: { format: { type: "text" } },
    tool_choice: "auto",
    tools: [],
    top_p: 1.0,
    truncation: "disabled",
    usage: status === "completed" ? USAGE : null,
    user: null,
    metadata: {},
  };
}

const message = (text: string) => ({
  id: "msg_67ccd3acc8d48190a77525dc6de64b4104becb25c45c1d41",
  type: "message",
  status: "completed",
  role: "assistant",
  content: [{ type: "output_text", annotations: [], logprobs: [], text }],
});
const functionCall = (c: { id: string; name: string; argumentsJson: string }, i: number) => ({
  id: `fc_67ca09c6bedc8190a7abfec07b1a133209661${i}`,
  type: "function_call",
  status: "completed",
  arguments: c.argumentsJson,
  call_id: c.id,
  name: c.name,
});
const reasoningItem = (text: string) => ({
  id: "rs_6876cf02e0bc8192b74af0fb64b715ff06fa2fcced15a5ac",
  type: "reasoning",
  summary: [{ type: "summary_text", text }],
  encrypted_content: ENCRYPTED,
});

const json = (body: unknown, status = 200): ReplayResponse => ({
  status,
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

const ERRORS: Record<number, { message: string; type: string; code: string | null }> = {
  401: {
    message:
      "Incorrect API key provided: sk-test. You can find your API key at https://platform.openai.com/account/api-keys.",
    type: "invalid_request_error",
    code: "invalid_api_key",
  },
  429: {
    message: "Rate limit reached for o4-mini in organization org-123 on requests per min (RPM).",
    type: "requests",
    code: "rate_limit_exceeded",
  },
  500: {
    message: "The server had an error while processing your request. Sorry about that!",
    type: "server_error",
    code: null,
  },
};

/** The SSE body of a response made of `items`, each streamed by its own events. */
class Events {
  readonly list: Array<{ event: string; data: Record<string, unknown> }> = [];
  add(type: string, data: Record<string, unknown> = {}): this {
    this.list.push({ event: type, data: { type, sequence_number: this.list.length, ...data } });
    return this;
  }
  start(): this {
    const inProgress = response([], "in_progress");
    return this.add("response.created", { response: inProgress }).add("response.in_progress", {
      response: inProgress,
    });
  }
  text(index: number, text: string, done = true): this {
    const item = message(text);
    this.add("response.output_item.added", {
      output_index: index,
      item: { ...item, status: "in_progress", content: [] },
    });
    for (let i = 0; i < text.length; i += 8)
      this.add("response.output_text.delta", {
        item_id: item.id,
        output_index: index,
        content_index: 0,
        delta: text.slice(i, i + 8),
        logprobs: [],
      });
    if (done) this.add("response.output_item.done", { output_index: index, item });
    return this;
  }
  call(index: number, c: { id: string; name: string; argumentsJson: string }): this {
    const item = functionCall(c, index);
    this.add("response.output_item.added", {
      output_index: index,
      item: { ...item, status: "in_progress", arguments: "" },
    });
    for (let i = 0; i < c.argumentsJson.length; i += 6)
      this.add("response.function_call_arguments.delta", {
        item_id: item.id,
        output_index: index,
        delta: c.argumentsJson.slice(i, i + 6),
      });
    return this.add("response.output_item.done", { output_index: index, item });
  }
  reasoning(index: number, text: string): this {
    const item = reasoningItem(text);
    this.add("response.output_item.added", {
      output_index: index,
      item: { id: item.id, type: "reasoning", summary: [] },
    });
    this.add("response.reasoning_summary_part.added", {
      item_id: item.id,
      output_index: index,
      summary_index: 0,
      part: { type: "summary_text", text: "" },
    });
    for (let i = 0; i < text.length; i += 12)
      this.add("response.reasoning_summary_text.delta", {
        item_id: item.id,
        output_index: index,
        summary_index: 0,
        delta: text.slice(i, i + 12),
      });
    return this.add("response.output_item.done", { output_index: index, item });
  }
  completed(output: unknown[]): this {
    return this.add("response.completed", { response: response(output) });
  }
  reply(hang = false): ReplayResponse {
    return {
      headers: { "content-type": "text/event-stream" },
      body: sseEvents(this.list),
      ...(hang ? { hang: true } : {}),
    };
  }
}

function scenarioResponder(scenario: ConformanceScenario) {
  return (req: RecordedRequest): ReplayResponse => {
    const streaming = (req.json as { stream?: boolean } | null)?.stream === true;
    switch (scenario.kind) {
      case "text":
        return streaming
          ? new Events()
              .start()
              .text(0, scenario.content)
              .completed([message(scenario.content)])
              .reply()
          : json(response([message(scenario.content)]));
      case "toolCalls": {
        const output = scenario.calls.map(functionCall);
        if (!streaming) return json(response(output));
        const events = new Events().start();
        for (const [i, c] of scenario.calls.entries()) events.call(i, c);
        return events.completed(output).reply();
      }
      case "reasoning": {
        const output = [reasoningItem(scenario.thinking), message(scenario.content)];
        return streaming
          ? new Events()
              .start()
              .reasoning(0, scenario.thinking)
              .text(1, scenario.content)
              .completed(output)
              .reply()
          : json(response(output));
      }
      case "httpError":
        return json({ error: { ...ERRORS[scenario.status], param: null } }, scenario.status);
      case "stall":
        return streaming
          ? new Events().start().text(0, scenario.content, false).reply(true)
          : { hang: true };
    }
  };
}

let server: ReplayServer;
beforeAll(async () => {
  server = await ReplayServer.start();
});
afterAll(async () => {
  await server.close();
});

describeChatConformance(
  'OpenAIChat (api: "responses")',
  (scenario) => {
    server.reset();
    server.fallback = scenarioResponder(scenario);
    return new OpenAIChat({
      model: "o4-mini",
      api: "responses",
      apiKey: "sk-test",
      baseURL: `${server.url}/v1`,
      maxRetries: 1,
      initialRetryDelayMs: 1,
      maxRetryDelayMs: 5,
    });
  },
  { parts: { provider: "openai", lastRequestBody: () => server.requests.at(-1)?.json } },
);
