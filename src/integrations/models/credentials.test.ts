/** `missingKeyVariable`: the API key variable a model spec needs and the environment lacks. */
import { expect, it } from "vitest";
import { ModelSpecError } from "../../errors/index.js";
import { registerProvider } from "./chat-model.js";
import { missingKeyVariable } from "./credentials.js";

it("names the provider's variable when it is unset or empty, and null when set", () => {
  expect(missingKeyVariable("openai:gpt-4o-mini", {})).toBe("OPENAI_API_KEY");
  expect(missingKeyVariable("openai:gpt-4o-mini", { OPENAI_API_KEY: "" })).toBe("OPENAI_API_KEY");
  expect(missingKeyVariable("openai:gpt-4o-mini", { OPENAI_API_KEY: "sk-1" })).toBeNull();
  expect(missingKeyVariable("anthropic:claude-sonnet-4-5", {})).toBe("ANTHROPIC_API_KEY");
  expect(missingKeyVariable("google:gemini-2.5-flash", {})).toBe("GOOGLE_GENERATIVE_AI_API_KEY");
});

it("is null for a provider that needs no key, one it does not know, and one registered", () => {
  expect(missingKeyVariable("ollama:llama3.2", {})).toBeNull();
  expect(missingKeyVariable("@acme/ai:model-1", {})).toBeNull();
  const unregister = registerProvider("openai", () => {
    throw new Error("not called");
  });
  try {
    expect(missingKeyVariable("openai:gpt-4o-mini", {})).toBeNull();
  } finally {
    unregister();
  }
});

it("throws ModelSpecError for a spec that is not provider:model", () => {
  expect(() => missingKeyVariable("gpt-4o", {})).toThrow(ModelSpecError);
  expect(() => missingKeyVariable("gpt-4o", {})).toThrow(
    'a model is "provider:model", like "openai:gpt-4o-mini" or "google:gemini-2.5-flash"; got "gpt-4o"',
  );
});
