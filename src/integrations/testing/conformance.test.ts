import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { SOURCE_LOADER } from "../../../test/source-loader.js";
import { ToolCall } from "../../chat/tool-call.js";
import type {
  Chat,
  ChatCallOptions,
  ChatRequest,
  ChatResponse,
  ChatStreamChunk,
} from "../../chat/types.js";
import { ModelProviderError, RunCancelledError } from "../../errors/index.js";
import { type ConformanceScenario, describeChatConformance } from "./conformance.js";

/** A chat with no backend that plays one scenario: the shape docs/write-a-chat-integration.md describes. */
class ScenarioChat implements Chat {
  readonly model = "scenario";
  constructor(private readonly scenario: ConformanceScenario) {}

  async complete(_request: ChatRequest, options: ChatCallOptions = {}): Promise<ChatResponse> {
    const s = this.scenario;
    if (options.signal?.aborted) throw new RunCancelledError("cancelled");
    if (s.kind === "httpError")
      throw new ModelProviderError(`HTTP ${s.status}`, {
        provider: "scenario",
        status: s.status,
        retryable: s.status === 429 || s.status >= 500,
      });
    if (s.kind === "stall") {
      await new Promise((_, reject) =>
        options.signal?.addEventListener("abort", () => reject(new RunCancelledError("cancelled"))),
      );
    }
    const toolCalls =
      s.kind === "toolCalls"
        ? s.calls.map((c) => ToolCall.fromArgumentsJson(c.id, c.name, c.argumentsJson))
        : [];
    return {
      content: s.kind === "text" || s.kind === "reasoning" ? s.content : null,
      refusal: null,
      toolCalls,
      reasoning:
        s.kind === "reasoning"
          ? [{ type: "reasoning", text: s.thinking, provider: "scenario", data: null }]
          : [],
      finishReason: toolCalls.length > 0 ? "tool_calls" : "stop",
      usage: { totalTokens: 1 },
      model: this.model,
      raw: null,
    };
  }

  async *stream(
    _request: ChatRequest,
    options: ChatCallOptions = {},
  ): AsyncGenerator<ChatStreamChunk> {
    const s = this.scenario;
    if (options.signal?.aborted) throw new RunCancelledError("cancelled");
    if (s.kind === "stall") {
      yield { contentDelta: s.content };
      await new Promise((_, reject) =>
        options.signal?.addEventListener("abort", () => reject(new RunCancelledError("cancelled"))),
      );
    }
    if (s.kind === "httpError") {
      await this.complete(_request, options);
      return;
    }
    if (s.kind === "reasoning") {
      yield { reasoningDelta: { index: 0, text: s.thinking, provider: "scenario" } };
      yield { contentDelta: s.content };
    }
    if (s.kind === "text") yield { contentDelta: s.content };
    if (s.kind === "toolCalls")
      for (const [index, c] of s.calls.entries())
        yield { toolCallDelta: { index, id: c.id, name: c.name, arguments: c.argumentsJson } };
    yield {
      finishReason: s.kind === "toolCalls" ? "tool_calls" : "stop",
      usage: { totalTokens: 1 },
    };
  }
}

describeChatConformance("ScenarioChat (no backend)", (scenario) => new ScenarioChat(scenario), {
  parts: { provider: "scenario" },
});

const root = fileURLToPath(new URL("../../..", import.meta.url));

async function runExample(file: string): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [...SOURCE_LOADER, file], {
    cwd: root,
    timeout: 60_000,
  });
  return stdout;
}

describe("chat examples print what the docs say", () => {
  it("examples/chat/custom-chat.ts", async () => {
    expect(await runExample("examples/chat/custom-chat.ts")).toBe(
      [
        'tool_calls [{"id":"call_1","name":"get_order_status","arguments":{"orderId":"A-1001"},"argumentsError":null}]',
        "streamed: { orderId: 'A-1001' }",
        "Order A-1001 has shipped.",
        "",
      ].join("\n"),
    );
  });

  it("examples/chat/openai-replay.ts", async () => {
    expect(await runExample("examples/chat/openai-replay.ts")).toBe(
      [
        "tool_calls get_order_status { orderId: 'A-1001' }",
        'sent: {"include_usage":true}',
        "",
      ].join("\n"),
    );
  });
});
