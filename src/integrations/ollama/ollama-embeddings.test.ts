import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ModelProviderError } from "../../errors/index.js";
import { HashEmbeddings } from "../../memory/hash-embeddings.js";
import { InMemoryStore } from "../../memory/in-memory-store.js";
import {
  type RecordedRequest,
  type ReplayResponse,
  ReplayServer,
} from "../testing/replay-server.js";
import { OllamaEmbeddings } from "./index.js";

// ---- Wire format of POST /api/embed, as documented ----------------------------------------

const MODEL = "all-minilm";
const embedResponse = (embeddings: number[][]): ReplayResponse => ({
  status: 200,
  headers: { "content-type": "application/json; charset=utf-8" },
  body: JSON.stringify({
    model: MODEL,
    embeddings,
    total_duration: 14143917,
    load_duration: 1019500,
    prompt_eval_count: 8,
  }),
});
const local = new HashEmbeddings({ dimensions: 8 });
const responder = (req: RecordedRequest) =>
  embedResponse((req.json as { input: string[] }).input.map((t) => local.vector(t)));

let server: ReplayServer;
beforeAll(async () => {
  server = await ReplayServer.start();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => server.reset());

const make = (o: Partial<ConstructorParameters<typeof OllamaEmbeddings>[0]> = {}) =>
  new OllamaEmbeddings({
    model: MODEL,
    host: server.url,
    initialRetryDelayMs: 1,
    maxRetryDelayMs: 5,
    ...o,
  });

describe("OllamaEmbeddings", () => {
  it("posts the texts to /api/embed and returns the vectors", async () => {
    server.enqueue(
      embedResponse([
        [0.010071029, -0.0017594862, 0.05007221],
        [0.5, 0.25, -1],
      ]),
    );
    const vectors = await make({ truncate: false, keepAlive: "5m" }).embed([
      "Why is the sky blue?",
      "tea",
    ]);
    expect(vectors).toEqual([
      [0.010071029, -0.0017594862, 0.05007221],
      [0.5, 0.25, -1],
    ]);
    const [req] = server.requests as [RecordedRequest];
    expect(req.method).toBe("POST");
    expect(req.path).toBe("/api/embed");
    expect(req.json).toEqual({
      model: MODEL,
      input: ["Why is the sky blue?", "tea"],
      truncate: false,
      keep_alive: "5m",
    });
  });

  it("retries a 500, fails on a 404 (model not found) with ModelProviderError", async () => {
    const error = (status: number, message: string): ReplayResponse => ({
      status,
      headers: { "content-type": "application/json; charset=utf-8" },
      body: JSON.stringify({ error: message }),
    });
    server.enqueue(error(500, "llama runner process has terminated"), embedResponse([[1, 0]]));
    expect(await make().embed(["x"])).toEqual([[1, 0]]);
    expect(server.requests).toHaveLength(2);
    server.reset();
    server.enqueue(error(404, 'model "nomic" not found, try pulling it first'));
    const e = await make({ model: "nomic" })
      .embed(["x"])
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ModelProviderError);
    expect((e as Error).message).toBe(
      'Ollama answered HTTP 404: model "nomic" not found, try pulling it first',
    );
    expect((e as ModelProviderError).retryable).toBe(false);
  });

  it("gives a memory store semantic search through the server", async () => {
    server.fallback = responder;
    const store = new InMemoryStore({
      index: { embeddings: make(), dimensions: 8, fields: ["text"] },
    });
    await store.put(["u"], "tea", { text: "green tea" });
    await store.put(["u"], "job", { text: "works as a pilot" });
    const [hit] = await store.search(["u"], { query: "pilot", limit: 1 });
    expect(hit!.key).toBe("job");
  });
});
