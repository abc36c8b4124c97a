/**
 * A served graph with input and output schemas: a run answers with the output fields, the
 * thread's state route shows every field, and an input field outside `input` answers 400.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Graph } from "../graph/graph.js";
import { node, START } from "../graph/node.js";
import { END } from "../graph/routing.js";
import { defineState } from "../state/define-state.js";
import { MemoryStateStore } from "../stores/index.js";
import { createServer } from "./index.js";

const State = defineState({
  question: z.string().default(""),
  scratch: z.string().default(""),
  answer: z.string().default(""),
});
type S = typeof State.State;

function serve() {
  const think = node((s: S) => ({ scratch: `notes on ${s.question}` }), { name: "think" });
  const reply = node((s: S) => ({ answer: `${s.question}: ${s.scratch}` }), { name: "reply" });
  const graph = new Graph(State, {
    stateStore: new MemoryStateStore(),
    input: ["question"],
    output: ["answer"],
  }).flow(START.to(think), think.to(reply), reply.to(END));
  const app = createServer({ graph, allowedHosts: null });
  return async (method: string, path: string, body?: unknown) => {
    const res = await app.fetch(
      new Request(`http://localhost${path}`, {
        method,
        ...(body === undefined
          ? {}
          : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
      }),
    );
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
}

describe("server: input and output schemas", () => {
  it("a run answers with the output fields; GET state shows them all; a field outside input is 400", async () => {
    const call = serve();
    const run = await call("POST", "/api/threads/t/runs", { input: { question: "why" } });
    expect([run.status, run.body.status, run.body.state]).toEqual([
      200,
      "completed",
      { answer: "why: notes on why" },
    ]);
    const state = await call("GET", "/api/threads/t/state");
    expect((state.body as { state: unknown }).state).toEqual({
      question: "why",
      scratch: "notes on why",
      answer: "why: notes on why",
    });
    expect(await call("POST", "/api/threads/u/runs", { input: { scratch: "x" } })).toEqual({
      status: 400,
      body: {
        error: {
          type: "StateUpdateError",
          message:
            'Graph "graph": the input has field "scratch", which is not an input field; input fields: question',
        },
      },
    });
  });
});
