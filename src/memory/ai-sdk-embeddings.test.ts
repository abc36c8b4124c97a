import { describe, expect, it } from "vitest";
import { MemoryStoreError } from "../errors/index.js";
import { type AiSdkEmbeddingModel, aiSdkEmbeddings } from "./ai-sdk-embeddings.js";
import { HashEmbeddings } from "./hash-embeddings.js";
import { InMemoryStore } from "./in-memory-store.js";

/** Shaped like an `EmbeddingModelV2<string>` of @ai-sdk/provider, as providers build them. */
function fakeModel(max: number | undefined, calls: string[][], signals: unknown[]) {
  const local = new HashEmbeddings({ dimensions: 8 });
  return {
    specificationVersion: "v2",
    provider: "test",
    modelId: "test-embedding",
    maxEmbeddingsPerCall: Promise.resolve(max),
    supportsParallelCalls: false,
    async doEmbed({ values, abortSignal }: { values: string[]; abortSignal?: AbortSignal }) {
      calls.push(values);
      signals.push(abortSignal);
      return { embeddings: values.map((v) => local.vector(v)), usage: { tokens: values.length } };
    },
  } satisfies AiSdkEmbeddingModel & Record<string, unknown>;
}

describe("aiSdkEmbeddings", () => {
  it("embeds in batches of maxEmbeddingsPerCall, passing the signal as abortSignal", async () => {
    const calls: string[][] = [];
    const signals: unknown[] = [];
    const signal = new AbortController().signal;
    const e = aiSdkEmbeddings(fakeModel(2, calls, signals));
    const out = await e.embed(["a", "b", "c"], { signal });
    expect(calls).toEqual([["a", "b"], ["c"]]);
    expect(signals).toEqual([signal, signal]);
    expect(out).toEqual(
      ["a", "b", "c"].map((t) => new HashEmbeddings({ dimensions: 8 }).vector(t)),
    );
  });

  it("serves a memory store; refuses a wrong count of vectors", async () => {
    const calls: string[][] = [];
    const store = new InMemoryStore({
      index: { embeddings: aiSdkEmbeddings(fakeModel(undefined, calls, [])), dimensions: 8 },
    });
    await store.put(["n"], "k", { text: "hello" });
    expect(calls).toEqual([['{"text":"hello"}']]);
    const bad = aiSdkEmbeddings({ modelId: "m", doEmbed: async () => ({ embeddings: [] }) });
    await expect(bad.embed(["x"])).rejects.toThrow(
      new MemoryStoreError('AI SDK model "m" returned 0 embeddings for 1 values'),
    );
  });
});
