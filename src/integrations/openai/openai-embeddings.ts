/**
 * `OpenAIEmbeddings`: the {@link Embeddings} interface over OpenAI's `/v1/embeddings`, through
 * the official `openai` package (an optional peer dependency, loaded on first use).
 *
 * @module
 */
import type OpenAI from "openai";
import { ModelProviderError } from "../../errors/index.js";
import type { Embeddings } from "../../memory/types.js";
import {
  CallControl,
  DEFAULT_TIMEOUT_MS,
  loadPeer,
  type ProviderCallOptions,
  type RetryPolicy,
  retryPolicy,
  withRetries,
} from "../internal/call.js";
import { mapSdkError, type SdkErrorClasses } from "../internal/sdk-errors.js";

const PROVIDER = "openai";
const LABEL = "OpenAI embeddings";

/** Options of {@link OpenAIEmbeddings}. Only `model` is required. */
export interface OpenAIEmbeddingsOptions extends ProviderCallOptions {
  /** Model name, such as `"text-embedding-3-small"` (1,536 dimensions). */
  model: string;
  /** Ask for shorter vectors (`dimensions`, text-embedding-3 models); default the model's. */
  dimensions?: number;
  /** API key; defaults to `OPENAI_API_KEY`. */
  apiKey?: string;
  /** Base URL, for OpenAI-compatible servers; defaults to `OPENAI_BASE_URL` or `https://api.openai.com/v1`. */
  baseURL?: string;
  /** A ready client instead of building one. */
  client?: OpenAI;
  /** Most texts in one request (OpenAI takes up to 2,048); default 512. */
  batchSize?: number;
}

type OpenAIModule = typeof import("openai");

/**
 * Embeddings from OpenAI's embeddings endpoint (`POST /embeddings`), or any server that speaks
 * it. Texts are sent in batches of `batchSize`; the vectors come back in the texts' order (the
 * SDK asks for base64 and decodes it to float32).
 *
 * @throws ModelProviderError from `embed` when the `openai` package is missing, on HTTP errors
 *   (408, 429 and 5xx retried as `maxRetries` allows), connection failures and time-outs.
 * @throws RunCancelledError when `options.signal` fires.
 * @example
 * ```ts
 * import { OpenAIEmbeddings } from "nodestep/openai";
 * const embeddings = new OpenAIEmbeddings({ model: "text-embedding-3-small" });
 * const store = new InMemoryStore({ index: { embeddings, dimensions: 1536, fields: ["text"] } });
 * ```
 */
export class OpenAIEmbeddings implements Embeddings {
  /** Model name sent with every request. */
  readonly model: string;
  readonly #options: OpenAIEmbeddingsOptions;
  readonly #policy: RetryPolicy;
  readonly #timeoutMs: number;
  readonly #batch: number;
  #loaded: Promise<{ client: OpenAI; classes: SdkErrorClasses }> | null = null;

  constructor(options: OpenAIEmbeddingsOptions) {
    if (typeof options?.model !== "string" || options.model === "")
      throw new TypeError(
        "OpenAIEmbeddings needs a model name: new OpenAIEmbeddings({ model: 'text-embedding-3-small' })",
      );
    const batch = options.batchSize ?? 512;
    if (!Number.isInteger(batch) || batch < 1 || batch > 2048)
      throw new RangeError(
        `OpenAIEmbeddings: batchSize must be a whole number from 1 to 2048, got ${batch}`,
      );
    this.model = options.model;
    this.#options = options;
    this.#policy = retryPolicy(options);
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#batch = batch;
  }

  #load(): Promise<{ client: OpenAI; classes: SdkErrorClasses }> {
    this.#loaded ??= (async () => {
      const mod = await loadPeer<OpenAIModule>(
        "openai",
        "OpenAIEmbeddings",
        PROVIDER,
        () => import("openai"),
      );
      const client =
        this.#options.client ??
        new mod.OpenAI({
          ...(this.#options.apiKey !== undefined ? { apiKey: this.#options.apiKey } : {}),
          ...(this.#options.baseURL !== undefined ? { baseURL: this.#options.baseURL } : {}),
          maxRetries: 0,
        });
      return { client, classes: mod };
    })();
    this.#loaded.catch(() => {
      this.#loaded = null;
    });
    return this.#loaded;
  }

  async embed(texts: string[], options: { signal?: AbortSignal } = {}): Promise<number[][]> {
    const { client, classes } = await this.#load();
    const out: number[][] = [];
    for (let at = 0; at < texts.length; at += this.#batch) {
      const input = texts.slice(at, at + this.#batch);
      const res = await withRetries(
        async () => {
          const control = new CallControl(this.#timeoutMs, options.signal);
          try {
            return await client.embeddings.create(
              {
                model: this.model,
                input,
                ...(this.#options.dimensions !== undefined
                  ? { dimensions: this.#options.dimensions }
                  : {}),
              },
              { signal: control.signal, maxRetries: 0, timeout: this.#timeoutMs },
            );
          } catch (e) {
            throw mapSdkError(e, { provider: PROVIDER, label: LABEL, control, classes });
          } finally {
            control.dispose();
          }
        },
        this.#policy,
        options.signal,
      );
      const data = [...res.data].sort((a, b) => a.index - b.index);
      if (data.length !== input.length) {
        throw new ModelProviderError(
          `OpenAI embeddings returned ${data.length} vectors for ${input.length} texts`,
          { provider: PROVIDER, retryable: false },
        );
      }
      for (const d of data) out.push(Array.from(d.embedding as ArrayLike<number>));
    }
    return out;
  }
}
