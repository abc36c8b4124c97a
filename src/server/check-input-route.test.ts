/**
 * A graph's `checkInput` refusing a run started over HTTP: the status and body are the
 * error's (`PendingToolCallsError` 409, `ValueError` 400, others 500), on the plain and the
 * streaming run routes, and a hook that throws something that is not an `Error` answers 500
 * with the usual body too (it used to end the answer with an empty 500).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { PendingToolCallsError, ValueError } from "../errors/index.js";
import { END, Graph, node, START } from "../graph/index.js";
import { defineState } from "../state/define-state.js";
import { MemoryStateStore } from "../stores/index.js";
import { createServer } from "./app.js";

const State = defineState({ n: z.number().default(0) });

describe("POST …/runs on a graph whose checkInput refuses the input", () => {
  let refusal: () => unknown = () => undefined;
  const add = node((s: typeof State.State) => ({ n: s.n + 1 }), { name: "add" });
  const graph = new Graph(State, {
    name: "h",
    stateStore: new MemoryStateStore(),
    checkInput: () => {
      const r = refusal();
      if (r instanceof Promise) return r as Promise<void>;
      throw r;
    },
  }).flow(START.to(add), add.to(END));
  const app = createServer({ graph });
  const post = async (path: string) => {
    const res = await app.request(path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: { n: 1 } }),
    });
    return { status: res.status, body: await res.text() };
  };
  const body = (type: string, message: string) => JSON.stringify({ error: { type, message } });

  it("answers with the refusal's status and body", async () => {
    expect((await post("/api/threads/t/runs")).status).toBe(200);
    const cases: [() => unknown, number, string][] = [
      [
        () =>
          new PendingToolCallsError("pending", {
            threadId: "t",
            branchId: "main",
            index: 1,
            callIds: ["c1"],
            interruptKeys: [],
          }),
        409,
        body("PendingToolCallsError", "pending"),
      ],
      [() => new ValueError("not now"), 400, body("ValueError", "not now")],
      [() => Promise.reject(new TypeError("late")), 500, body("TypeError", "late")],
      [() => "nope", 500, body("Error", "nope")],
      [() => Promise.reject({ code: 7 }), 500, body("Error", "[object Object]")],
    ];
    for (const [make, status, text] of cases) {
      refusal = make;
      for (const path of ["/api/threads/t/runs", "/api/threads/t/runs/stream"]) {
        expect([path, await post(path)]).toEqual([path, { status, body: text }]);
      }
    }
    // Nothing was written: the thread is as the first run left it.
    refusal = () => undefined;
    const state = await app.request("/api/threads/t/state");
    expect(((await state.json()) as { state: unknown }).state).toEqual({ n: 2 });
  });
});
