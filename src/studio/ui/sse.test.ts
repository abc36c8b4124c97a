import { describe, expect, it } from "vitest";
import { readSse } from "./sse.ts";

function response(chunks: string[]): Response {
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      for (const chunk of chunks) c.enqueue(new TextEncoder().encode(chunk));
      c.close();
    },
  });
  return new Response(body);
}

describe("readSse", () => {
  it("reads events split across chunks, CRLF lines and multi-line data; skips comments and ids", async () => {
    const seen: [string, unknown][] = [];
    await readSse(
      response([
        ": heartbeat\n\nevent: run\nid: 1\nda",
        'ta: {"a":1}\n\nevent: updates\r\ndata: {"b":\r\ndata: 2}\r\n\r\n',
        'data: "plain"\n\n',
      ]),
      (event, data) => seen.push([event, data]),
    );
    expect(seen).toEqual([
      ["run", { a: 1 }],
      ["updates", { b: 2 }],
      ["message", "plain"],
    ]);
  });
});
