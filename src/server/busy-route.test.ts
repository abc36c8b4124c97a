/**
 * Issue 17, item 4 on the server: the run routes take `onBusy` and `onBusyTimeoutMs` in their
 * body; a busy thread answers 409 (`reject`, a wait that timed out), a stopped run's request
 * answers 409 `RunStoppedError`, and bad values are refused with 400.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { END, Graph, node, START } from "../graph/index.js";
import { defineState, reducer } from "../state/define-state.js";
import { MemoryStateStore } from "../stores/index.js";
import { createServer, type ListeningServer, listen } from "./index.js";

const State = defineState({
  log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
});

let server: ListeningServer;
let store: MemoryStateStore;
let release: () => void;
let entered: Promise<void>;

beforeEach(async () => {
  store = new MemoryStateStore();
  let enter!: () => void;
  entered = new Promise<void>((r) => {
    enter = r;
  });
  const opened = new Promise<void>((r) => {
    release = r;
  });
  let calls = 0;
  const one = node(
    async () => {
      if (calls++ === 0) {
        enter();
        await opened;
      }
      return { log: ["one"] };
    },
    { name: "one" },
  );
  const two = node(() => ({ log: ["two"] }), { name: "two" });
  const graph = new Graph(State, { name: "busy", stateStore: store }).flow(
    START.to(one),
    one.to(two),
    two.to(END),
  );
  server = await listen(createServer({ graph }), { port: 0 });
});
afterEach(() => server.close());

async function post(path: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(server.url + path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

const err = (type: string, message: string) => ({ error: { type, message } });

describe("POST /api/threads/:id/runs with onBusy", () => {
  it("reject answers 409 at once; enqueue waits and runs after the first", async () => {
    const first = post("/api/threads/t/runs", { input: { log: ["a"] } });
    await entered;
    expect(await post("/api/threads/t/runs", { input: { log: ["b"] }, onBusy: "reject" })).toEqual({
      status: 409,
      body: err(
        "ThreadBusyError",
        'Thread "t" (branch "main") is already running; graph "busy" cannot start a second run on it until the first ends (or its lease of 30000 ms expires); pass onBusy: "enqueue" to wait for it, "interrupt" to stop it or "rollback" to undo it (docs/busy-threads.md)',
      ),
    });
    expect(
      await post("/api/threads/t/runs", {
        input: { log: ["b"] },
        onBusy: "enqueue",
        onBusyTimeoutMs: 30,
      }),
    ).toEqual({
      status: 409,
      body: err(
        "ThreadBusyError",
        'Thread "t" (branch "main") was still running after graph "busy" waited 30 ms for it (onBusy "enqueue"); nothing was run. Raise onBusyTimeoutMs (at most 3600000), or try again later',
      ),
    });
    const second = post("/api/threads/t/runs", { input: { log: ["b"] }, onBusy: "enqueue" });
    await new Promise((r) => setTimeout(r, 30));
    release();
    const [a, b] = await Promise.all([first, second]);
    expect(a.status).toBe(200);
    expect((a.body as { state: unknown }).state).toEqual({ log: ["a", "one", "two"] });
    expect(b.status).toBe(200);
    expect((b.body as { status: string; state: unknown }).status).toBe("completed");
    expect((b.body as { state: unknown }).state).toEqual({
      log: ["a", "one", "two", "b", "one", "two"],
    });
  });

  it("interrupt: the first request answers 409 RunStoppedError, the second runs on what it kept", async () => {
    const first = post("/api/threads/t/runs", { input: { log: ["a"] } });
    await entered;
    const second = post("/api/threads/t/runs", { input: { log: ["b"] }, onBusy: "interrupt" });
    const aId = (await store.read("t", "main"))[0]!.runId;
    while ((await store.stopRequested("t", "main", aId)) === null)
      await new Promise((r) => setTimeout(r, 5));
    release();
    const [a, b] = await Promise.all([first, second]);
    const bId = (b.body as { runId: string }).runId;
    expect(a).toEqual({
      status: 409,
      body: err(
        "RunStoppedError",
        `Run "${aId}" of graph "busy" on thread "t" (branch "main") was stopped before superstep 1 because run "${bId}" asked for the thread (onBusy "interrupt" or "rollback"); the supersteps it committed stay in the log (a "rollback" undoes them)`,
      ),
    });
    expect(b.status).toBe(200);
    expect((b.body as { state: unknown }).state).toEqual({ log: ["a", "one", "b", "one", "two"] });
  });

  it("refuses a bad onBusy or onBusyTimeoutMs with 400", async () => {
    expect(await post("/api/threads/t/runs", { input: {}, onBusy: "later" })).toEqual({
      status: 400,
      body: err(
        "InvalidRequest",
        'onBusy: Invalid option: expected one of "reject"|"enqueue"|"interrupt"|"rollback"',
      ),
    });
    expect(await post("/api/threads/t/runs", { input: {}, onBusyTimeoutMs: 5 })).toEqual({
      status: 400,
      body: err(
        "InvalidRequest",
        'body: onBusyTimeoutMs is how long onBusy "enqueue", "interrupt" or "rollback" waits: give one of them with it',
      ),
    });
    expect(
      await post("/api/threads/t/runs/stream", {
        input: {},
        onBusy: "enqueue",
        onBusyTimeoutMs: 3_600_001,
      }),
    ).toEqual({
      status: 400,
      body: err("InvalidRequest", "onBusyTimeoutMs: Too big: expected number to be <=3600000"),
    });
    expect(await store.listThreads()).toEqual([]);
  });
});
