/**
 * `OllamaEmbeddings`: the {@link Embeddings} interface over Ollama's `/api/embed`, through the
 * official `ollama` package (an optional peer dependency, loaded on first use).
 *
 * @module
 */
import { ModelProviderError } from "../../errors/index.js";
import type { Embeddings } from "../../memory/types.js";
import {
  CallControl,
  DEFAULT_TIMEOUT_MS,
  isRetryableStatus,
  loadPeer,
  type ProviderCallOptions,
  type RetryPolicy,
  retryPolicy,
  withRetries,
} from "../internal/call.js";

const PROVIDER = "ollama";
type OllamaModule = typeof import("ollama");

/** Options of {@link OllamaEmbeddings}. Only `model` is required. */
export interface OllamaEmbeddingsOptions extends ProviderCallOptions {
  /** Embedding model, such as `"nomic-embed-text"` (768 dimensions) or `"all-minilm"` (384). */
  model: string;
  /** The server; default `OLLAMA_HOST` or `http://127.0.0.1:11434` (as the SDK does). */
  host?: string;
  /** Ask for shorter vectors (`dimensions`), for models that can; default the model's. */
  dimensions?: number;
  /** Truncate texts longer than the model's context instead of failing (`truncate`); default the server's (true). */
  truncate?: boolean;
  /** How long the model stays loaded after the call (`keep_alive`), such as `"5m"`. */
  keepAlive?: string | number;
}

function messageOf(e: unknown): string {
  return (e as Error | null)?.message ?? String(e);
}

/**
 * Embeddings from an Ollama server's `POST /api/embed` (all texts in one request).
 *
 * @throws ModelProviderError from `embed` when the `ollama` package is missing, the server
 *   answers an HTTP error (429 and 5xx retried), or cannot be reached (retried).
 * @throws RunCancelledError when `options.signal` fires.
 * @example
 * ```ts
 * import { OllamaEmbeddings } from "nodestep/ollama";
 * const embeddings = new OllamaEmbeddings({ model: "nomic-embed-text" });
 * const store = new InMemoryStore({ index: { embeddings, dimensions: 768 } });
 * ```
 */
export class OllamaEmbeddings implements Embeddings {
  /** Model name sent with every request. */
  readonly model: string;
  readonly #options: OllamaEmbeddingsOptions;
  readonly #policy: RetryPolicy;
  readonly #timeoutMs: number;
  #module: Promise<OllamaModule> | null = null;

  constructor(options: OllamaEmbeddingsOptions) {
    if (typeof options?.model !== "string" || options.model === "")
      throw new TypeError(
        "OllamaEmbeddings needs a model name: new OllamaEmbeddings({ model: 'nomic-embed-text' })",
      );
    this.model = options.model;
    this.#options = options;
    this.#policy = retryPolicy(options);
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  async embed(texts: string[], options: { signal?: AbortSignal } = {}): Promise<number[][]> {
    this.#module ??= loadPeer<OllamaModule>(
      "ollama",
      "OllamaEmbeddings",
      PROVIDER,
      () => import("ollama"),
    );
    this.#module.catch(() => {
      this.#module = null;
    });
    const mod = await this.#module;
    const o = this.#options;
    const res = await withRetries(
      async () => {
        const control = new CallControl(this.#timeoutMs, options.signal);
        const client = new mod.Ollama({
          ...(o.host !== undefined ? { host: o.host } : {}),
          fetch: (input, init) =>
            globalThis.fetch(input, {
              ...init,
              signal: init?.signal
                ? AbortSignal.any([init.signal, control.signal])
                : control.signal,
            }),
        });
        try {
          return await client.embed({
            model: this.model,
            input: texts,
            ...(o.dimensions !== undefined ? { dimensions: o.dimensions } : {}),
            ...(o.truncate !== undefined ? { truncate: o.truncate } : {}),
            ...(o.keepAlive !== undefined ? { keep_alive: o.keepAlive } : {}),
          });
        } catch (e) {
          const stop = control.stopError(PROVIDER, e);
          if (stop) throw stop;
          const status = (e as { status_code?: unknown } | null)?.status_code;
          if (typeof status === "number") {
            throw new ModelProviderError(`Ollama answered HTTP ${status}: ${messageOf(e)}`, {
              provider: PROVIDER,
              status,
              retryable: isRetryableStatus(status),
              cause: e,
            });
          }
          throw new ModelProviderError(
            `Could not reach Ollama at ${o.host ?? "the default host"}: ${messageOf(e)}. Is \`ollama serve\` running?`,
            { provider: PROVIDER, retryable: true, cause: e },
          );
        } finally {
          control.dispose();
        }
      },
      this.#policy,
      options.signal,
    );
    if (!Array.isArray(res.embeddings) || res.embeddings.length !== texts.length) {
      throw new ModelProviderError(
        `Ollama returned ${Array.isArray(res.embeddings) ? res.embeddings.length : "no"} embeddings for ${texts.length} texts`,
        { provider: PROVIDER, retryable: false },
      );
    }
    return res.embeddings;
  }
}
