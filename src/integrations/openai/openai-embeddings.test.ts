import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ModelProviderError } from "../../errors/index.js";
import { HashEmbeddings } from "../../memory/hash-embeddings.js";
import { InMemoryStore } from "../../memory/in-memory-store.js";
import {
  type RecordedRequest,
  type ReplayResponse,
  ReplayServer,
} from "../testing/replay-server.js";
import { OpenAIEmbeddings } from "./index.js";

// ---- Wire format of POST /v1/embeddings, as documented ------------------------------------
// The SDK asks for encoding_format "base64" unless told: each embedding is then the base64 of
// its float32 values, little-endian.

const MODEL = "text-embedding-3-small";
const base64 = (v: number[]) => Buffer.from(new Float32Array(v).buffer).toString("base64");

function embeddingsResponse(vectors: number[][], format: "base64" | "float"): ReplayResponse {
  return {
    status: 200,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      object: "list",
      data: vectors.map((v, index) => ({
        object: "embedding",
        index,
        embedding: format === "base64" ? base64(v) : v,
      })),
      model: MODEL,
      usage: { prompt_tokens: 8, total_tokens: 8 },
    }),
  };
}

/** Answers like the API: one vector per input, from a local deterministic embedder. */
const local = new HashEmbeddings({ dimensions: 8 });
const responder = (req: RecordedRequest): ReplayResponse => {
  const body = req.json as { input: string[]; encoding_format: "base64" | "float" };
  return embeddingsResponse(
    body.input.map((t) => local.vector(t)),
    body.encoding_format,
  );
};

let server: ReplayServer;
beforeAll(async () => {
  server = await ReplayServer.start();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => server.reset());

const make = (o: Partial<ConstructorParameters<typeof OpenAIEmbeddings>[0]> = {}) =>
  new OpenAIEmbeddings({
    model: MODEL,
    apiKey: "sk-test",
    baseURL: `${server.url}/v1`,
    initialRetryDelayMs: 1,
    maxRetryDelayMs: 5,
    ...o,
  });

describe("OpenAIEmbeddings", () => {
  it("posts the texts to /v1/embeddings and returns the decoded vectors in order", async () => {
    server.enqueue(
      embeddingsResponse(
        [
          [0.5, -0.25, 1],
          [0, 2, -3.5],
        ],
        "base64",
      ),
    );
    const vectors = await make({ dimensions: 3 }).embed(["green tea", "black coffee"]);
    expect(vectors).toEqual([
      [0.5, -0.25, 1],
      [0, 2, -3.5],
    ]);
    const [req] = server.requests as [RecordedRequest];
    expect(req.method).toBe("POST");
    expect(req.path).toBe("/v1/embeddings");
    expect(req.headers.authorization).toBe("Bearer sk-test");
    expect(req.json).toEqual({
      model: MODEL,
      input: ["green tea", "black coffee"],
      dimensions: 3,
      encoding_format: "base64",
    });
  });

  it("sends batches of batchSize texts", async () => {
    server.fallback = responder;
    const texts = ["a", "b", "c", "d", "e"];
    const vectors = await make({ batchSize: 2 }).embed(texts);
    expect(server.requests.map((r) => (r.json as { input: string[] }).input)).toEqual([
      ["a", "b"],
      ["c", "d"],
      ["e"],
    ]);
    expect(vectors).toEqual(texts.map((t) => local.vector(t)));
  });

  it("retries a 500 and fails on a 401 with ModelProviderError", async () => {
    const error = (status: number) => ({
      status,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        error: {
          message:
            status === 401 ? "Incorrect API key provided: sk-test." : "The server had an error",
          type: "invalid_request_error",
          param: null,
          code: status === 401 ? "invalid_api_key" : null,
        },
      }),
    });
    server.enqueue(error(500), embeddingsResponse([[1, 0]], "base64"));
    expect(await make().embed(["x"])).toEqual([[1, 0]]);
    expect(server.requests).toHaveLength(2);
    server.reset();
    server.enqueue(error(401));
    const e = await make()
      .embed(["x"])
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ModelProviderError);
    expect((e as ModelProviderError).status).toBe(401);
    expect((e as ModelProviderError).retryable).toBe(false);
  });

  it("gives a memory store semantic search through the API", async () => {
    server.fallback = responder;
    const store = new InMemoryStore({
      index: { embeddings: make(), dimensions: 8, fields: ["text"] },
    });
    await store.put(["u"], "tea", { text: "green tea" });
    await store.put(["u"], "job", { text: "works as a pilot" });
    const [hit] = await store.search(["u"], { query: "tea", limit: 1 });
    expect(hit!.key).toBe("tea");
    expect(server.requests.map((r) => (r.json as { input: string[] }).input)).toEqual([
      ["green tea"],
      ["works as a pilot"],
      ["tea"],
    ]);
  });
});
