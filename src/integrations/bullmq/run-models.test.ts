/**
 * A run's model choice on the workers (`ServerOptions.models` → the job's `model` →
 * `RunWorkerOptions.models`), on the machine's Redis and PostgreSQL (a schema and key prefix
 * per test, removed after): the worker runs the graph of the model the run asked for, and
 * refuses a model it does not offer with an `UnknownModelError` its stream and status show.
 */
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Graph } from "../../graph/graph.js";
import { node, START } from "../../graph/node.js";
import { END } from "../../graph/routing.js";
import { createServer, type ListeningServer, listen } from "../../server/index.js";
import { defineState } from "../../state/index.js";
import type { StateStore } from "../../stores/types.js";
import { PostgresStateStore } from "../postgres/index.js";
import { BullMQRunQueue, runRunWorker } from "./index.js";
import { isolation, PG_URL, parseSse, REDIS } from "./sse.fixture.js";

const State = defineState({
  topic: z.string().default(""),
  answer: z.string().nullable().default(null),
});

/** The same flow "with another model": its one node answers `"<model>: <topic>"`. */
function graphOf(model: string, stateStore: StateStore) {
  const answer = node((s: typeof State.State) => ({ answer: `${model}: ${s.topic}` }), {
    name: "answer",
  });
  return new Graph(State, { name: "chooser", stateStore }).flow(START.to(answer), answer.to(END));
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** A server offering m-1 (current), m-2 and m-3; a worker offering m-1 and m-2 only. */
async function setup() {
  const iso = isolation("runmodels");
  closers.push(() => iso.cleanup());
  const store = () => {
    const s = new PostgresStateStore({ connectionString: PG_URL, schema: iso.schema });
    closers.push(() => s.close());
    return s;
  };
  const runQueue = new BullMQRunQueue({ connection: REDIS, prefix: iso.prefix });
  closers.push(() => runQueue.close());
  const served = store();
  const app = createServer({
    graph: graphOf("m-1", served),
    models: {
      current: "m-1",
      graphs: { "m-2": graphOf("m-2", served), "m-3": graphOf("m-3", served) },
    },
    runQueue,
  });
  const server: ListeningServer = await listen(app, { port: 0 });
  closers.push(() => server.close());
  const own = store();
  const worker = await runRunWorker({
    connection: REDIS,
    prefix: iso.prefix,
    graph: graphOf("m-1", own),
    models: { current: "m-1", graphs: { "m-2": graphOf("m-2", own) } },
  });
  closers.push(() => worker.close(0));
  return { url: server.url, store: store() };
}

const stream = async (url: string, threadId: string, body: unknown) => {
  const res = await fetch(`${url}/api/threads/${threadId}/runs/stream`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { res, events: parseSse(await res.text()) };
};

describe("a run's model choice on the workers", () => {
  it("the worker runs the graph of the model the run asked for; none is the current model", async () => {
    const { url, store } = await setup();
    const chosen = await stream(url, "t1", { input: { topic: "x" }, model: "m-2" });
    expect(chosen.res.status).toBe(200);
    expect(chosen.events.map((e) => e.event)).toEqual(["run", "updates", "end"]);
    expect((chosen.events[2]!.data as { state: unknown }).state).toEqual({
      topic: "x",
      answer: "m-2: x",
    });
    const plain = await stream(url, "t2", { input: { topic: "y" } });
    expect((plain.events.at(-1)!.data as { state: unknown }).state).toEqual({
      topic: "y",
      answer: "m-1: y",
    });
    const current = await stream(url, "t3", { input: { topic: "z" }, model: "m-1" });
    expect((current.events.at(-1)!.data as { state: unknown }).state).toEqual({
      topic: "z",
      answer: "m-1: z",
    });
    // Stored by the worker: a cold read of the shared store.
    expect((await graphOf("m-1", store).getState("t1")).state).toEqual({
      topic: "x",
      answer: "m-2: x",
    });
  });

  it("a model the worker does not offer ends the run with UnknownModelError, in its stream and status", async () => {
    const { url, store } = await setup();
    const message =
      'asks for model "m-3", which this worker does not offer (it offers: m-1, m-2); start workers with the same --models as the servers';
    const refused = await fetch(`${url}/api/threads/t1/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: { topic: "x" }, model: "m-3", detach: true }),
    });
    // The worker refuses it as the run's first event: answered as an early error (as in process).
    expect(refused.status).toBe(400);
    const answer = (await refused.json()) as { error: { type: string; message: string } };
    expect(answer.error.type).toBe("UnknownModelError");
    const runId = /^Run "([^"]+)"/.exec(answer.error.message)?.[1] ?? "";
    expect(answer).toEqual({
      error: { type: "UnknownModelError", message: `Run "${runId}" ${message}` },
    });
    const listed = (await (await fetch(`${url}/api/threads/t1/runs`)).json()) as {
      runs: Array<Record<string, unknown>>;
    };
    expect(listed.runs.map((r) => [r.runId, r.status])).toEqual([[runId, "error"]]);
    const joined = await fetch(`${url}/api/threads/t1/runs/${runId}/stream`);
    const events = parseSse(await joined.text());
    expect(events.map((e) => [e.event, e.data])).toEqual([
      ["error", { error: { type: "UnknownModelError", message: `Run "${runId}" ${message}` } }],
    ]);
    const info = (await (await fetch(`${url}/api/threads/t1/runs/${runId}`)).json()) as Record<
      string,
      unknown
    >;
    expect(info).toMatchObject({ runId, status: "error" });
    // Refused before it ran: the thread has nothing.
    expect(await store.read("t1", "main")).toEqual([]);

    const streamed = await stream(url, "t2", { input: { topic: "y" }, model: "m-3" });
    expect(streamed.res.status).toBe(400);
    expect(streamed.events).toEqual([]); // a JSON error body, not a stream
  });
});
