/**
 * {@link chatModel}: one factory from a `"provider:model"` string to a {@link Chat}, for the
 * built-in integrations (`openai:`, `anthropic:`, `ollama:`), providers registered with
 * {@link registerProvider}, and any installed AI SDK provider package (`google:` →
 * `@ai-sdk/google`).
 *
 * @module
 */
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Chat } from "../../chat/types.js";
import { ModelSpecError } from "../../errors/index.js";
import type { AISdkChatOptions, AISdkLanguageModel } from "../ai-sdk/ai-sdk-chat.js";

/**
 * Options of {@link chatModel}, passed through: to the built-in integration's constructor
 * (`OpenAIChatOptions`, `AnthropicChatOptions`, `OllamaChatOptions` without `model`), or, for an
 * AI SDK provider, to `fromAISdk` (`settings`, `maxRetries`, `timeoutMs`, `name`) with
 * `providerSettings` given to the package's `create…` function (`apiKey`, `baseURL`, `headers`…).
 */
export interface ChatModelOptions extends AISdkChatOptions {
  /** Settings of an AI SDK provider package's `create…` function (`createGoogleGenerativeAI({ apiKey, baseURL })`); without them its default instance (`google`) is used. */
  providerSettings?: Record<string, unknown>;
  [option: string]: unknown;
}

/** An AI SDK provider instance (`google`, `mistral`, `createOpenAICompatible({...})`): anything with `languageModel(id)`. */
export interface AISdkProvider {
  languageModel(modelId: string): AISdkLanguageModel;
}

/** What {@link registerProvider} takes: an AI SDK provider, or a function from a model id and options to a Chat or an AI SDK model. */
export type ProviderFactory =
  | AISdkProvider
  | ((
      modelId: string,
      options: ChatModelOptions,
    ) => Chat | AISdkLanguageModel | Promise<Chat | AISdkLanguageModel>);

const registry = new Map<string, ProviderFactory>();

/** Provider names whose AI SDK package has another name. */
export const AI_SDK_PACKAGE_ALIASES: Readonly<Record<string, string>> = {
  bedrock: "@ai-sdk/amazon-bedrock",
  vertex: "@ai-sdk/google-vertex",
};

const NAME = /^[a-z0-9][a-z0-9._-]*$/i;

/**
 * Register a provider under `name`, so that `chatModel("name:model")` uses it (it wins over a
 * built-in provider and an installed package of that name).
 *
 * @returns a function that removes the registration.
 * @throws {ModelSpecError} `name` is empty or holds characters other than letters, digits, `.`, `_`, `-`.
 * @example
 * ```ts
 * import { createMistral } from "@ai-sdk/mistral";
 * registerProvider("mistral", createMistral({ apiKey: process.env.MISTRAL_KEY }));
 * const chat = await chatModel("mistral:mistral-large-latest");
 * ```
 */
export function registerProvider(name: string, factory: ProviderFactory): () => void {
  if (!NAME.test(name))
    throw new ModelSpecError(
      `registerProvider needs a name of letters, digits, ".", "_" or "-"; got ${JSON.stringify(name)}`,
      { spec: name },
    );
  registry.set(name, factory);
  return () => {
    if (registry.get(name) === factory) registry.delete(name);
  };
}

/** Whether a provider is registered under `name` with {@link registerProvider}. */
export function isRegisteredProvider(name: string): boolean {
  return registry.has(name);
}

function isChat(v: unknown): v is Chat {
  const c = v as Partial<Chat> | null;
  return typeof c?.complete === "function" && typeof c.stream === "function";
}

function hasLanguageModel(v: unknown): v is AISdkProvider {
  return typeof (v as AISdkProvider | null)?.languageModel === "function";
}

async function toChat(made: unknown, options: ChatModelOptions, spec: string): Promise<Chat> {
  if (isChat(made)) return made;
  if (
    typeof (made as { specificationVersion?: unknown } | null)?.specificationVersion === "string"
  ) {
    const { fromAISdk } = await import("../ai-sdk/ai-sdk-chat.js");
    const { providerSettings: _p, ...rest } = options;
    return fromAISdk(made as AISdkLanguageModel, rest as AISdkChatOptions);
  }
  throw new ModelSpecError(
    `chatModel(${JSON.stringify(spec)}): the provider gave neither a Chat nor an AI SDK language model`,
    { spec },
  );
}

const BUILT_IN: Record<string, { pkg: string; load: () => Promise<(o: object) => Chat> }> = {
  openai: {
    pkg: "openai",
    load: async () => {
      await import("openai");
      const { OpenAIChat } = await import("../openai/openai-chat.js");
      return (o) => new OpenAIChat(o as never);
    },
  },
  anthropic: {
    pkg: "@anthropic-ai/sdk",
    load: async () => {
      await import("@anthropic-ai/sdk");
      const { AnthropicChat } = await import("../anthropic/anthropic-chat.js");
      return (o) => new AnthropicChat(o as never);
    },
  },
  ollama: {
    pkg: "ollama",
    load: async () => {
      await import("ollama");
      const { OllamaChat } = await import("../ollama/ollama-chat.js");
      return (o) => new OllamaChat(o as never);
    },
  },
};

function isMissing(e: unknown, pkg: string): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  const message = String((e as Error | null)?.message);
  return (
    (code === "ERR_MODULE_NOT_FOUND" ||
      code === "MODULE_NOT_FOUND" ||
      /Cannot find (module|package)/.test(message)) &&
    message.includes(pkg)
  );
}

/** Import a package from nodestep's own location, else from the working directory's project. */
async function importPackage(pkg: string): Promise<Record<string, unknown>> {
  try {
    return (await import(pkg)) as Record<string, unknown>;
  } catch (e) {
    if (!isMissing(e, pkg)) throw e;
    const path = createRequire(join(process.cwd(), "package.json")).resolve(pkg);
    return (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  }
}

async function fromPackage(
  pkg: string,
  modelId: string,
  options: ChatModelOptions,
  spec: string,
  provider: string,
): Promise<Chat> {
  let mod: Record<string, unknown>;
  try {
    mod = await importPackage(pkg);
  } catch (e) {
    if (!isMissing(e, pkg)) throw e;
    throw new ModelSpecError(
      `chatModel(${JSON.stringify(spec)}): no provider "${provider}" is registered and the package ${pkg} is not installed: run \`npm install ${pkg}\` (or registerProvider("${provider}", ...))`,
      { spec, cause: e },
    );
  }
  let instance: unknown;
  if (options.providerSettings !== undefined) {
    const create = Object.entries(mod).find(
      ([k, v]) => /^create[A-Z]/.test(k) && typeof v === "function",
    );
    if (!create)
      throw new ModelSpecError(
        `chatModel(${JSON.stringify(spec)}): ${pkg} exports no create… function to take providerSettings`,
        { spec },
      );
    instance = (create[1] as (s: unknown) => unknown)(options.providerSettings);
  } else {
    instance = Object.values(mod).find(hasLanguageModel);
    if (instance === undefined)
      throw new ModelSpecError(
        `chatModel(${JSON.stringify(spec)}): ${pkg} has no default provider instance: pass providerSettings (its create… function's settings, such as baseURL)`,
        { spec },
      );
  }
  if (!hasLanguageModel(instance))
    throw new ModelSpecError(
      `chatModel(${JSON.stringify(spec)}): ${pkg}'s create… function gave no provider with languageModel()`,
      { spec },
    );
  return toChat(instance.languageModel(modelId), options, spec);
}

/** Split `"provider:model"` at its first `:` (a package name such as `@acme/ai:model-1` may be the provider). */
export function parseModelSpec(spec: string): { provider: string; modelId: string } {
  const colon = typeof spec === "string" ? spec.indexOf(":") : -1;
  const provider = colon < 0 ? "" : spec.slice(0, colon).trim();
  const modelId = colon < 0 ? "" : spec.slice(colon + 1).trim();
  if (provider === "" || modelId === "")
    throw new ModelSpecError(
      `a model is "provider:model", like "openai:gpt-4o-mini" or "google:gemini-2.5-flash"; got ${JSON.stringify(spec)}`,
      { spec: String(spec) },
    );
  return { provider, modelId };
}

/**
 * Make a {@link Chat} from a `"provider:model"` string. The provider is, in this order: one
 * registered with {@link registerProvider}; a built-in integration (`openai`, `anthropic`,
 * `ollama`, whose SDK must be installed); an AI SDK provider package: `@ai-sdk/<provider>`
 * (`bedrock` → `@ai-sdk/amazon-bedrock`, `vertex` → `@ai-sdk/google-vertex`), or the package
 * named before the colon when it is a scoped name (`@acme/ai-provider:model-1`).
 *
 * @param spec - `"provider:model"`, such as `"anthropic:claude-sonnet-4-5"`.
 * @param options - passed through (see {@link ChatModelOptions}).
 * @throws {ModelSpecError} `spec` is not `provider:model`; the provider is unknown and its
 *   package is not installed; the built-in integration's SDK is not installed (each one line
 *   saying what to install).
 * @example
 * ```ts
 * const chat = await chatModel(process.env.NODESTEP_MODEL ?? "openai:gpt-4o-mini", { maxRetries: 1 });
 * ```
 */
export async function chatModel(spec: string, options: ChatModelOptions = {}): Promise<Chat> {
  const { provider, modelId } = parseModelSpec(spec);
  const registered = registry.get(provider);
  if (registered !== undefined) {
    const made = hasLanguageModel(registered)
      ? registered.languageModel(modelId)
      : await registered(modelId, options);
    return toChat(made, options, spec);
  }
  const builtIn = BUILT_IN[provider];
  if (builtIn !== undefined) {
    let make: (o: object) => Chat;
    try {
      make = await builtIn.load();
    } catch (e) {
      if (!isMissing(e, builtIn.pkg)) throw e;
      throw new ModelSpecError(
        `chatModel(${JSON.stringify(spec)}) needs the "${builtIn.pkg}" package, which is not installed: run \`npm install ${builtIn.pkg}\``,
        { spec, cause: e },
      );
    }
    return make({ ...options, model: modelId });
  }
  if (!NAME.test(provider) && !/^@[a-z0-9._-]+\/[a-z0-9._-]+$/i.test(provider))
    throw new ModelSpecError(
      `chatModel(${JSON.stringify(spec)}): "${provider}" is not a provider name or a package name`,
      { spec },
    );
  const pkg = provider.startsWith("@")
    ? provider
    : (AI_SDK_PACKAGE_ALIASES[provider] ?? `@ai-sdk/${provider}`);
  return fromPackage(pkg, modelId, options, spec, provider);
}
