import { MockLanguageModelV4 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HumanMessage } from "../../chat/messages.js";
import { ScriptedChat } from "../../chat/scripted-chat.js";
import { ChatRequest } from "../../chat/types.js";
import { ModelSpecError } from "../../errors/index.js";
import { AISdkChat } from "../ai-sdk/index.js";
import { AnthropicChat } from "../anthropic/index.js";
import { OllamaChat } from "../ollama/index.js";
import { OpenAIChat } from "../openai/index.js";
import { ReplayServer } from "../testing/replay-server.js";
import { chatModel, parseModelSpec, registerProvider } from "./index.js";

let server: ReplayServer;
beforeAll(async () => {
  server = await ReplayServer.start();
});
afterAll(async () => {
  await server.close();
});

async function specError(p: Promise<unknown>): Promise<ModelSpecError> {
  const e = await p.catch((x: unknown) => x);
  expect(e).toBeInstanceOf(ModelSpecError);
  return e as ModelSpecError;
}

describe("chatModel", () => {
  it("makes the built-in integrations with options passed through", async () => {
    const openai = await chatModel("openai:gpt-4o-mini", { apiKey: "sk-x", maxRetries: 0 });
    expect(openai).toBeInstanceOf(OpenAIChat);
    expect(openai.model).toBe("gpt-4o-mini");
    const anthropic = await chatModel("anthropic:claude-sonnet-4-5", { apiKey: "k" });
    expect([anthropic instanceof AnthropicChat, anthropic.model]).toEqual([
      true,
      "claude-sonnet-4-5",
    ]);
    const ollama = await chatModel("ollama:llama3.2:1b");
    expect([ollama instanceof OllamaChat, ollama.model]).toEqual([true, "llama3.2:1b"]);
  });

  it("passes options through to the integration (a replay server as baseURL)", async () => {
    server.reset();
    server.fallback = { status: 401, body: '{"error":{"message":"bad key"}}' };
    const chat = await chatModel("openai:gpt-4o-mini", {
      apiKey: "sk-x",
      baseURL: `${server.url}/v1`,
      maxRetries: 0,
    });
    await chat
      .complete(ChatRequest({ messages: [HumanMessage({ content: "hi" })] }))
      .catch(() => {});
    expect(server.requests.map((r) => [r.path, r.headers.authorization])).toEqual([
      ["/v1/chat/completions", "Bearer sk-x"],
    ]);
  });

  it("uses a registered provider: an AI SDK provider, a function giving a model, a function giving a Chat", async () => {
    const model = new MockLanguageModelV4({ provider: "mock", modelId: "m-1" });
    const removeA = registerProvider("mockai", {
      languageModel: (id) => ({ ...model, modelId: id }) as never,
    });
    const removeB = registerProvider("mockfn", (id, options) => {
      expect(options).toEqual({ name: "renamed" });
      return new MockLanguageModelV4({ provider: "mock", modelId: id });
    });
    const scripted = new ScriptedChat([]);
    const removeC = registerProvider("openai", () => scripted);
    try {
      const a = await chatModel("mockai:m-2", { maxRetries: 0 });
      expect([a instanceof AISdkChat, a.model]).toEqual([true, "m-2"]);
      const b = await chatModel("mockfn:m-3", { name: "renamed" });
      expect([b instanceof AISdkChat, b.model]).toEqual([true, "renamed"]);
      expect(await chatModel("openai:anything")).toBe(scripted);
    } finally {
      removeA();
      removeB();
      removeC();
    }
    expect(await chatModel("openai:gpt-4o")).toBeInstanceOf(OpenAIChat);
    const e = await specError(chatModel("mockai:m-2"));
    expect(e.message).toBe(
      'chatModel("mockai:m-2"): no provider "mockai" is registered and the package @ai-sdk/mockai is not installed: run `npm install @ai-sdk/mockai` (or registerProvider("mockai", ...))',
    );
  });

  it("loads an installed AI SDK package by the provider's name, with providerSettings for its create function", async () => {
    server.reset();
    server.fallback = {
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        candidates: [
          { content: { parts: [{ text: "Hello." }], role: "model" }, finishReason: "STOP" },
        ],
        usageMetadata: { promptTokenCount: 2, candidatesTokenCount: 2, totalTokenCount: 4 },
      }),
    };
    const chat = await chatModel("google:gemini-2.5-flash", {
      providerSettings: { baseURL: `${server.url}/v1beta`, apiKey: "g-key" },
      maxRetries: 0,
    });
    expect([chat instanceof AISdkChat, chat.model, (chat as AISdkChat).provider]).toEqual([
      true,
      "gemini-2.5-flash",
      "google.generative-ai",
    ]);
    const r = await chat.complete(ChatRequest({ messages: [HumanMessage({ content: "hi" })] }));
    expect(r.content).toBe("Hello.");
    expect(server.requests.map((q) => [q.path, q.headers["x-goog-api-key"]])).toEqual([
      ["/v1beta/models/gemini-2.5-flash:generateContent", "g-key"],
    ]);
    const e = await specError(chatModel("openai-compatible:llama"));
    expect(e.message).toBe(
      'chatModel("openai-compatible:llama"): @ai-sdk/openai-compatible has no default provider instance: pass providerSettings (its create… function\'s settings, such as baseURL)',
    );
  });

  it("gives one-line typed errors for bad strings, unknown providers and missing packages", async () => {
    const cases: Array<[string, string]> = [
      [
        "gpt-4o",
        'a model is "provider:model", like "openai:gpt-4o-mini" or "google:gemini-2.5-flash"; got "gpt-4o"',
      ],
      [
        "openai:",
        'a model is "provider:model", like "openai:gpt-4o-mini" or "google:gemini-2.5-flash"; got "openai:"',
      ],
      [
        "mistral:mistral-large-latest",
        'chatModel("mistral:mistral-large-latest"): no provider "mistral" is registered and the package @ai-sdk/mistral is not installed: run `npm install @ai-sdk/mistral` (or registerProvider("mistral", ...))',
      ],
      [
        "bedrock:anthropic.claude-3",
        'chatModel("bedrock:anthropic.claude-3"): no provider "bedrock" is registered and the package @ai-sdk/amazon-bedrock is not installed: run `npm install @ai-sdk/amazon-bedrock` (or registerProvider("bedrock", ...))',
      ],
      [
        "@acme/ai-provider:model-1",
        'chatModel("@acme/ai-provider:model-1"): no provider "@acme/ai-provider" is registered and the package @acme/ai-provider is not installed: run `npm install @acme/ai-provider` (or registerProvider("@acme/ai-provider", ...))',
      ],
      ["a b:c", 'chatModel("a b:c"): "a b" is not a provider name or a package name'],
    ];
    for (const [spec, message] of cases) {
      const e = await specError(chatModel(spec));
      expect(e.message).toBe(message);
      expect(e.message.includes("\n")).toBe(false);
      expect(e.spec).toBe(spec);
    }
    expect(parseModelSpec("ollama:llama3.2:1b")).toEqual({
      provider: "ollama",
      modelId: "llama3.2:1b",
    });
    expect(() => registerProvider("", () => new ScriptedChat([]))).toThrow(
      'registerProvider needs a name of letters, digits, ".", "_" or "-"; got ""',
    );
  });
});
