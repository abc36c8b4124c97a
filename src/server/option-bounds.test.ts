/**
 * createServer's size and time options are checked when the server is made, as its run bounds
 * are: a value that is not an integer in its range (NaN from `Number(process.env.X)`, a string,
 * a negative number) would otherwise turn the body limit off or make it meaningless.
 */
import { describe, expect, it } from "vitest";
import { gatedGraph } from "./background-runs.fixture.js";
import { createServer } from "./index.js";

describe("createServer's maxBodyBytes and streamStartMs", () => {
  it("refuses a value that is not an integer in its range, with a TypeError naming it", () => {
    const { graph } = gatedGraph();
    const make = (o: object) => () => createServer({ graph: graph as never, ...o });
    expect(make({ maxBodyBytes: Number.NaN })).toThrow(
      new TypeError("createServer: maxBodyBytes must be an integer ≥ 1, got NaN"),
    );
    expect(make({ maxBodyBytes: -1 })).toThrow(
      new TypeError("createServer: maxBodyBytes must be an integer ≥ 1, got -1"),
    );
    expect(make({ maxBodyBytes: 0 })).toThrow(
      new TypeError("createServer: maxBodyBytes must be an integer ≥ 1, got 0"),
    );
    expect(make({ maxBodyBytes: Number.POSITIVE_INFINITY })).toThrow(
      new TypeError("createServer: maxBodyBytes must be an integer ≥ 1, got Infinity"),
    );
    expect(make({ maxBodyBytes: "10" })).toThrow(
      new TypeError("createServer: maxBodyBytes must be an integer ≥ 1, got 10"),
    );
    expect(make({ streamStartMs: -5 })).toThrow(
      new TypeError("createServer: streamStartMs must be an integer ≥ 0, got -5"),
    );
    expect(make({ streamStartMs: Number.NaN })).toThrow(
      new TypeError("createServer: streamStartMs must be an integer ≥ 0, got NaN"),
    );
  });

  it("a valid maxBodyBytes is the limit: one byte more answers 413", async () => {
    const { graph } = gatedGraph();
    const app = createServer({ graph: graph as never, maxBodyBytes: 20 });
    const post = (body: string) =>
      app.request("http://127.0.0.1/api/threads/t1/fork", {
        method: "POST",
        body,
        headers: { "content-type": "application/json" },
      });
    const over = await post(`{"eventId":"${"x".repeat(7)}"}`);
    expect(over.status).toBe(413);
    expect(await over.json()).toEqual({
      error: { type: "PayloadTooLarge", message: "The request body is larger than 20 bytes" },
    });
    // 14 bytes of JSON around the id: 21 bytes over, 20 within.
    const within = await post(`{"eventId":"${"x".repeat(6)}"}`);
    expect(within.status).toBe(404);
  });
});
