/**
 * The UI stream's body: chunks ready together go out as one piece (at most SSE_BATCH), with
 * exactly the text one piece per chunk would have (issue 20, item 4); a body cancelled while
 * a chunk is asked for stops the source through `cancel`.
 */
import { describe, expect, it } from "vitest";
import { SSE_BATCH, uiChunksToSse } from "./response.js";
import type { UIStreamChunk } from "./types.js";

async function* deltas(n: number): AsyncGenerator<UIStreamChunk> {
  for (let i = 0; i < n; i++) yield { type: "text-delta", id: "t", delta: String(i) };
}

async function pieces(body: ReadableStream<Uint8Array>): Promise<string[]> {
  const out: string[] = [];
  const decoder = new TextDecoder();
  for await (const p of body as unknown as AsyncIterable<Uint8Array>) out.push(decoder.decode(p));
  return out;
}

const expected = (n: number) =>
  `${Array.from({ length: n }, (_, i) => `data: {"type":"text-delta","id":"t","delta":"${i}"}\n\n`).join("")}data: [DONE]\n\n`;

describe("uiChunksToSse", () => {
  it("sends chunks ready together in pieces of at most SSE_BATCH, the same text", async () => {
    expect(SSE_BATCH).toBe(256);
    const got = await pieces(uiChunksToSse(deltas(1_000), { cancel: () => {} }));
    expect(got.join("")).toBe(expected(1_000));
    expect(got.length).toBeGreaterThanOrEqual(4);
    expect(got.length).toBeLessThan(1_000 / 10);
    for (const p of got) expect(p.split("data:").length - 1).toBeLessThanOrEqual(SSE_BATCH);
  });

  it("sends one chunk per piece without a cancel hook", async () => {
    const got = await pieces(uiChunksToSse(deltas(20)));
    expect(got.join("")).toBe(expected(20));
    expect(got.length).toBe(21);
  });

  it("stops the source through cancel when the body is cancelled while a chunk is asked for", async () => {
    let stop: () => void = () => {};
    const stopped = new Promise<void>((r) => {
      stop = r;
    });
    let cancelled = 0;
    async function* slow(): AsyncGenerator<UIStreamChunk> {
      yield { type: "start" };
      await stopped; // a run waiting on a tool, until it is cancelled
    }
    const body = uiChunksToSse(slow(), {
      cancel: () => {
        cancelled++;
        stop();
      },
    });
    const reader = body.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('data: {"type":"start"}\n\n');
    await reader.cancel();
    expect(cancelled).toBe(1);
  });
});
