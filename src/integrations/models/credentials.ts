/**
 * Which environment variable a provider's SDK reads its API key from, so that a command can
 * say at start that a model will fail at its first call (`nodestep serve --models
 * openai:gpt-4o-mini` without `OPENAI_API_KEY`).
 *
 * @module
 */
import { isRegisteredProvider, parseModelSpec } from "./chat-model.js";

/**
 * The API key variable of each provider that needs one, as its SDK (the built-in integration's,
 * or the AI SDK provider package's default instance) reads it. `ollama` needs none.
 */
export const PROVIDER_KEY_VARIABLES: Readonly<Record<string, string>> = {
  openai: "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY",
  google: "GOOGLE_GENERATIVE_AI_API_KEY",
  mistral: "MISTRAL_API_KEY",
  groq: "GROQ_API_KEY",
  xai: "XAI_API_KEY",
  deepseek: "DEEPSEEK_API_KEY",
  cohere: "COHERE_API_KEY",
};

/**
 * The API key variable a model spec needs and `env` lacks (unset or empty), or `null`: when it
 * has it, the provider needs none or is not known here, or the provider was registered with
 * `registerProvider` (its factory brings its own credentials).
 *
 * @param spec - `"provider:model"`, such as `"openai:gpt-4o-mini"`.
 * @param env - the environment to look in, such as `process.env`.
 * @throws {ModelSpecError} `spec` is not `provider:model`.
 * @example
 * ```ts
 * missingKeyVariable("openai:gpt-4o-mini", {}); // "OPENAI_API_KEY"
 * missingKeyVariable("ollama:llama3.2", {}); // null
 * ```
 */
export function missingKeyVariable(
  spec: string,
  env: Readonly<Record<string, string | undefined>>,
): string | null {
  const { provider } = parseModelSpec(spec);
  if (isRegisteredProvider(provider)) return null;
  const variable = PROVIDER_KEY_VARIABLES[provider];
  if (variable === undefined) return null;
  return env[variable] ? null : variable;
}
