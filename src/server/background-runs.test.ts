/**
 * Background runs on the server, over real HTTP: detached runs, streams that go on when their
 * client leaves, joining by run id from the start or from `Last-Event-ID`, listing and
 * cancelling, the event buffer's bound (410), the concurrent-run limit (429), heartbeats, the
 * idle timeout, and the UI stream's resume route.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { buildReactAgent } from "../agents/react-agent.js";
import { ScriptedChat } from "../chat/scripted-chat.js";
import { END, Graph, node, START } from "../graph/index.js";
import { SqliteStateStore } from "../integrations/sqlite/index.js";
import { defineState } from "../state/index.js";
import { MemoryStateStore } from "../stores/index.js";
import type { StateStore } from "../stores/types.js";
import { tool } from "../tools/tool.js";
import { createServer, type ListeningServer, listen, type ServerOptions } from "./index.js";

const State = defineState({ count: z.number().default(0) });
type S = typeof State.State;

/** first ──▶ wait (until `open()`) ──▶ last; each emits `{ at }` and sets `count`. */
function gatedGraph(stateStore: StateStore = new MemoryStateStore()) {
  let open = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const first = node(
    (_: S, ctx) => {
      ctx.emit({ at: "first" });
      return { count: 1 };
    },
    { name: "first" },
  );
  const wait = node(
    async (_: S, ctx) => {
      ctx.emit({ at: "wait" });
      await new Promise<void>((resolve, reject) => {
        void gate.then(resolve);
        ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason));
      });
      return { count: 2 };
    },
    { name: "wait" },
  );
  const last = node(
    (_: S, ctx) => {
      ctx.emit({ at: "last" });
      return { count: 3 };
    },
    { name: "last" },
  );
  const graph = new Graph(State, { name: "gated", stateStore }).flow(
    START.to(first),
    first.to(wait),
    wait.to(last),
    last.to(END),
  );
  return { graph, open: () => open() };
}

interface SseEvent {
  event: string;
  id: string | undefined;
  data: unknown;
}

function parseSse(text: string): SseEvent[] {
  return text
    .split("\n\n")
    .filter((block) => block.split("\n").some((l) => l.startsWith("data: ")))
    .map((block) => {
      let event = "message";
      let id: string | undefined;
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) event = line.slice(7);
        else if (line.startsWith("id: ")) id = line.slice(4);
        else if (line.startsWith("data: ")) data.push(line.slice(6));
      }
      return { event, id, data: JSON.parse(data.join("\n")) };
    });
}

/** Read a streamed answer until `until` holds for the events so far; then stop reading. */
async function readUntil(
  res: Response,
  until: (events: SseEvent[]) => boolean,
  abort?: AbortController,
): Promise<{ events: SseEvent[]; text: string }> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const events = parseSse(text.slice(0, text.lastIndexOf("\n\n") + 2));
    if (until(events)) {
      abort?.abort();
      await reader.cancel().catch(() => {});
      return { events, text };
    }
    const r = await reader.read();
    if (r.done) return { events: parseSse(text), text };
    text += decoder.decode(r.value, { stream: true });
  }
}

const brief = (events: SseEvent[]) =>
  events.map((e) => [e.id, e.event, (e.data as { data?: unknown }).data ?? null]);

let server: ListeningServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function start(extra: Partial<ServerOptions> = {}, stateStore?: StateStore) {
  const g = gatedGraph(stateStore);
  server = await listen(createServer({ graph: g.graph as never, ...extra }), { port: 0 });
  const url = server.url;
  const call = async (method: string, path: string, body?: unknown, headers = {}) => {
    const res = await fetch(url + path, {
      method,
      headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const type = res.headers.get("content-type") ?? "";
    const text = await res.text();
    return {
      status: res.status,
      body: type.startsWith("application/json") ? (JSON.parse(text) as unknown) : text,
    };
  };
  return { ...g, url, call };
}

/** Poll a run's info until `status` is not `running`. */
async function settled(call: Awaited<ReturnType<typeof start>>["call"], path: string) {
  for (;;) {
    const r = await call("GET", path);
    if ((r.body as { status: string }).status !== "running") return r.body;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Poll a run's info until it has buffered `n` events. */
async function reached(call: Awaited<ReturnType<typeof start>>["call"], path: string, n: number) {
  for (;;) {
    const r = await call("GET", path);
    if ((r.body as { lastEventId: number }).lastEventId >= n) return r.body;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const RUN_INFO = {
  runId: expect.stringMatching(/^r-[0-9a-f]{16}$/),
  threadId: "t1",
  branchId: "main",
  startedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
};
/** A run's body: a fresh thread needs an input. */
const GO = { input: { count: 0 } };
const err = (type: string, message: string) => ({ error: { type, message } });

describe("background runs", () => {
  it("a stream with onDisconnect: continue goes on when its client leaves; a client rejoins with Last-Event-ID", async () => {
    const s = await start();
    const abort = new AbortController();
    const res = await fetch(`${s.url}/api/threads/t1/runs/stream`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...GO, onDisconnect: "continue" }),
      signal: abort.signal,
    });
    expect(res.status).toBe(200);
    const runId = res.headers.get("x-nodestep-run-id") as string;
    const seen = await readUntil(res, (e) => e.length === 4, abort);
    expect(brief(seen.events)).toEqual([
      ["1", "run", null],
      ["2", "custom", { at: "first" }],
      ["3", "updates", { count: 1 }],
      ["4", "custom", { at: "wait" }],
    ]);
    expect(seen.events[0]?.data).toEqual({ threadId: "t1", branchId: "main", runId });

    // The client is gone; the run is still going on.
    const listed = await s.call("GET", "/api/threads/t1/runs");
    expect(listed).toEqual({
      status: 200,
      body: {
        threadId: "t1",
        runs: [
          {
            ...RUN_INFO,
            runId,
            status: "running",
            detached: true,
            endedAt: null,
            lastEventId: 4,
            firstBufferedId: 1,
          },
        ],
      },
    });

    const rejoined = await fetch(`${s.url}/api/threads/t1/runs/${runId}/stream`, {
      headers: { "last-event-id": "4" },
    });
    expect(rejoined.status).toBe(200);
    s.open();
    const rest = parseSse(await rejoined.text());
    expect(brief(rest)).toEqual([
      ["5", "updates", { count: 2 }],
      ["6", "custom", { at: "last" }],
      ["7", "updates", { count: 3 }],
      ["8", "end", null],
    ]);
    expect(rest[3]?.data).toEqual({
      threadId: "t1",
      branchId: "main",
      status: "completed",
      interrupts: [],
      lastEventId: expect.any(String),
      state: { count: 3 },
      threadUsage: expect.any(Object),
    });
    expect(await s.call("GET", `/api/threads/t1/runs/${runId}`)).toEqual({
      status: 200,
      body: {
        ...RUN_INFO,
        runId,
        status: "done",
        detached: true,
        endedAt: expect.stringMatching(/^\d{4}-/),
        lastEventId: 8,
        firstBufferedId: 1,
      },
    });
    // ?lastEventId= is the same as the header; from the start replays everything.
    const again = await fetch(`${s.url}/api/threads/t1/runs/${runId}/stream?lastEventId=6`);
    expect(brief(parseSse(await again.text()))).toEqual([
      ["7", "updates", { count: 3 }],
      ["8", "end", null],
    ]);
  });

  it("a plain stream's disconnect cancels its run, as before: the thread keeps the finished steps", async () => {
    const s = await start();
    const abort = new AbortController();
    const res = await fetch(`${s.url}/api/threads/t1/runs/stream`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(GO),
      signal: abort.signal,
    });
    const runId = res.headers.get("x-nodestep-run-id") as string;
    await readUntil(res, (e) => e.length === 4, abort);
    expect(await settled(s.call, `/api/threads/t1/runs/${runId}`)).toMatchObject({
      status: "cancelled",
      detached: false,
      lastEventId: 5,
    });
    const tail = await fetch(`${s.url}/api/threads/t1/runs/${runId}/stream?lastEventId=4`);
    expect(parseSse(await tail.text())).toEqual([
      {
        event: "error",
        id: "5",
        data: err("RunCancelledError", 'Run of graph "gated" was cancelled'),
      },
    ]);
    const state = await s.call("GET", "/api/threads/t1/state");
    expect((state.body as { state: unknown }).state).toEqual({ count: 1 });
  });

  it("detach: true answers 202 at once; any client joins from the start; cancel stops it", async () => {
    const s = await start();
    const started = await s.call("POST", "/api/threads/t1/runs", { ...GO, detach: true });
    expect(started).toEqual({
      status: 202,
      body: {
        ...RUN_INFO,
        status: "running",
        detached: true,
        endedAt: null,
        // The answer comes after the run's first event; how many more are buffered by then varies.
        lastEventId: expect.any(Number),
        firstBufferedId: 1,
      },
    });
    const { runId } = started.body as { runId: string };
    const abort = new AbortController();
    const joined = await fetch(`${s.url}/api/threads/t1/runs/${runId}/stream`, {
      signal: abort.signal,
    });
    const seen = await readUntil(joined, (e) => e.length === 4, abort);
    expect(brief(seen.events)).toEqual([
      ["1", "run", null],
      ["2", "custom", { at: "first" }],
      ["3", "updates", { count: 1 }],
      ["4", "custom", { at: "wait" }],
    ]);
    // A joined client leaving does not cancel a detached run.
    expect((await s.call("GET", `/api/threads/t1/runs/${runId}`)).body).toMatchObject({
      status: "running",
    });
    const cancelled = await s.call("POST", `/api/threads/t1/runs/${runId}/cancel`, {});
    expect(cancelled).toEqual({
      status: 200,
      body: {
        ...RUN_INFO,
        runId,
        status: "cancelled",
        detached: true,
        endedAt: expect.stringMatching(/^\d{4}-/),
        lastEventId: 5,
        firstBufferedId: 1,
      },
    });
    expect(await s.call("POST", `/api/threads/t1/runs/${runId}/cancel`, {})).toEqual({
      status: 409,
      body: err("RunNotActive", `Run "${runId}" has already ended (status "cancelled")`),
    });
    expect(
      ((await s.call("GET", "/api/threads/t1/state")).body as { state: unknown }).state,
    ).toEqual({ count: 1 });
    // The thread is free again: a new run starts.
    s.open();
    const next = await s.call("POST", "/api/threads/t1/runs", GO);
    expect((next.body as { state: unknown }).state).toEqual({ count: 3 });
  });

  it("keeps a bounded buffer: a join from before it answers 410, from inside it the rest", async () => {
    const s = await start({ runBufferEvents: 3 });
    s.open();
    const started = await s.call("POST", "/api/threads/t1/runs", { ...GO, detach: true });
    const { runId } = started.body as { runId: string };
    expect(await settled(s.call, `/api/threads/t1/runs/${runId}`)).toMatchObject({
      status: "done",
      lastEventId: 8,
      firstBufferedId: 6,
    });
    expect(await s.call("GET", `/api/threads/t1/runs/${runId}/stream`)).toEqual({
      status: 410,
      body: err(
        "EventsExpired",
        `Run "${runId}" keeps its events from id 6 on; events after 0 are gone (read the thread's state instead: GET /api/threads/t1/state)`,
      ),
    });
    const rest = await fetch(`${s.url}/api/threads/t1/runs/${runId}/stream?lastEventId=5`);
    expect(brief(parseSse(await rest.text()))).toEqual([
      ["6", "custom", { at: "last" }],
      ["7", "updates", { count: 3 }],
      ["8", "end", null],
    ]);
  });

  it("refuses more concurrent runs than maxConcurrentRuns with 429", async () => {
    const s = await start({ maxConcurrentRuns: 1 });
    const started = await s.call("POST", "/api/threads/t1/runs", { ...GO, detach: true });
    const tooMany = err(
      "TooManyRuns",
      "This server runs at most 1 runs at once; try again when one has finished",
    );
    expect(await s.call("POST", "/api/threads/t2/runs", GO)).toEqual({
      status: 429,
      body: tooMany,
    });
    expect(await s.call("POST", "/api/threads/t2/runs/stream", GO)).toEqual({
      status: 429,
      body: tooMany,
    });
    expect(await s.call("POST", "/api/threads/t2/runs", { ...GO, detach: true })).toEqual({
      status: 429,
      body: tooMany,
    });
    s.open();
    await settled(s.call, `/api/threads/t1/runs/${(started.body as { runId: string }).runId}`);
    const after = await s.call("POST", "/api/threads/t2/runs", GO);
    expect([after.status, (after.body as { state: unknown }).state]).toEqual([200, { count: 3 }]);
  });

  it("sends heartbeats, and closes an idle joined stream with a timeout event", async () => {
    const s = await start({ heartbeatMs: 20, joinIdleMs: 150 });
    const started = await s.call("POST", "/api/threads/t1/runs", { ...GO, detach: true });
    const { runId } = started.body as { runId: string };
    await reached(s.call, `/api/threads/t1/runs/${runId}`, 4);
    const joined = await fetch(`${s.url}/api/threads/t1/runs/${runId}/stream?lastEventId=4`);
    const text = await joined.text();
    expect(text.startsWith(": heartbeat\n\n")).toBe(true);
    expect(text.replaceAll(": heartbeat\n\n", "")).toBe(
      `event: timeout\ndata: {"runId":"${runId}","lastEventId":4,"idleMs":150}\n\n`,
    );
    expect((await s.call("GET", `/api/threads/t1/runs/${runId}`)).body).toMatchObject({
      status: "running",
    });
    s.open();
  });

  it("refuses malformed input on the new routes with 4xx", async () => {
    const s = await start();
    expect(await s.call("POST", "/api/threads/t1/runs/stream", { ...GO, detach: true })).toEqual({
      status: 400,
      body: err(
        "InvalidRequest",
        'detach: only for POST …/runs; a streamed run that goes on without its client is { "onDisconnect": "continue" }',
      ),
    });
    expect(await s.call("POST", "/api/threads/t1/runs", { onDisconnect: "continue" })).toEqual({
      status: 400,
      body: err(
        "InvalidRequest",
        'onDisconnect: only for POST …/runs/stream; a run that goes on without its client is { "detach": true } here',
      ),
    });
    expect(await s.call("POST", "/api/threads/t1/runs/stream", { onDisconnect: "later" })).toEqual({
      status: 400,
      body: err(
        "InvalidRequest",
        'onDisconnect: Invalid option: expected one of "cancel"|"continue"',
      ),
    });
    expect(await s.call("POST", "/api/threads/t1/runs", { detach: "yes" })).toEqual({
      status: 400,
      body: err("InvalidRequest", "detach: Invalid input: expected boolean, received string"),
    });
    expect(await s.call("GET", "/api/threads/t1/runs/r-0/stream")).toEqual({
      status: 404,
      body: err(
        "UnknownRun",
        'Thread "t1" has no run "r-0" on this server (finished runs are kept 300000 ms)',
      ),
    });
    s.open();
    const started = await s.call("POST", "/api/threads/t1/runs", { ...GO, detach: true });
    const { runId } = started.body as { runId: string };
    await settled(s.call, `/api/threads/t1/runs/${runId}`);
    // The run belongs to t1: under another thread it is unknown.
    expect((await s.call("GET", `/api/threads/t2/runs/${runId}`)).status).toBe(404);
    expect(
      await s.call("GET", `/api/threads/t1/runs/${runId}/stream`, undefined, {
        "last-event-id": "x",
      }),
    ).toEqual({
      status: 400,
      body: err(
        "InvalidRequest",
        'lastEventId (or Last-Event-ID) must be an event id, an integer ≥ 0, got "x"',
      ),
    });
    expect(await s.call("GET", `/api/threads/t1/runs/${runId}/stream?lastEventId=9`)).toEqual({
      status: 400,
      body: err("InvalidRequest", `lastEventId 9 is beyond run "${runId}"'s last event (8)`),
    });
    const plain = await fetch(`${s.url}/api/threads/t1/runs/${runId}/cancel`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "{}",
    });
    expect(plain.status).toBe(415);
    expect(await s.call("POST", `/api/threads/t1/runs/${runId}/cancel`, { now: true })).toEqual({
      status: 400,
      body: err("InvalidRequest", 'body: Unrecognized key: "now"'),
    });
    expect(await s.call("GET", "/api/threads/t1/ui-stream/t1/stream?branchId=")).toEqual({
      status: 400,
      body: err("InvalidRequest", "branchId must not be empty"),
    });
    expect(
      await s.call("POST", "/api/threads/t1/ui-stream?onDisconnect=never", { messages: [] }),
    ).toEqual({
      status: 400,
      body: err("InvalidRequest", 'onDisconnect must be "cancel" or "continue", got "never"'),
    });
  });
});

describe("the UI stream's resume route (useChat({ resume: true }))", () => {
  it("answers 204 without an active run, and replays the active run's UI chunks after the client left", async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = tool(
      async () => {
        await gate;
        return "ok";
      },
      { name: "slow", description: "Waits." },
    );
    const agent = buildReactAgent(
      new ScriptedChat([
        { content: "Wait.", toolCalls: [{ id: "c1", name: "slow", arguments: {} }] },
        "Done.",
      ]),
      { tools: [slow], stateStore: new MemoryStateStore(), stream: true },
    );
    server = await listen(createServer({ graph: agent as never }), { port: 0 });
    const api = `${server.url}/api/threads/t-1/ui-stream`;
    // As docs/background-runs.md shows: runs go on after a reload; reconnecting uses `api`.
    const transport = new DefaultChatTransport<UIMessage>({
      api,
      prepareSendMessagesRequest: ({ api, id, messages, trigger, messageId, body }) => ({
        api: `${api}?onDisconnect=continue`,
        body: { ...body, id, messages, trigger, messageId },
      }),
    });
    const resumer = transport;
    expect(await resumer.reconnectToStream({ chatId: "t-1" })).toBeNull();

    const abort = new AbortController();
    const user: UIMessage = { id: "u1", role: "user", parts: [{ type: "text", text: "Go" }] };
    const chunks = await transport.sendMessages({
      chatId: "t-1",
      messages: [user],
      trigger: "submit-message",
      messageId: undefined,
      abortSignal: abort.signal,
    });
    const reader = chunks.getReader();
    const first: string[] = [];
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      first.push(r.value.type);
      if (r.value.type === "tool-input-available") break;
    }
    abort.abort(); // the page reloads
    await reader.cancel().catch(() => {});
    expect(first).toEqual([
      "start",
      "start-step",
      "text-start",
      "text-delta",
      "tool-input-start",
      "tool-input-delta",
      "text-end",
      "tool-input-available",
    ]);

    const resumed = await resumer.reconnectToStream({ chatId: "t-1" });
    expect(resumed).not.toBeNull();
    release();
    let message: UIMessage | undefined;
    for await (const m of readUIMessageStream<UIMessage>({
      stream: resumed as ReadableStream<never>,
    })) {
      message = m;
    }
    expect(message?.parts).toEqual([
      { type: "step-start" },
      { type: "text", text: "Wait.", state: "done" },
      {
        type: "tool-slow",
        toolCallId: "c1",
        state: "output-available",
        input: {},
        output: "ok",
      },
      { type: "step-start" },
      { type: "text", text: "Done.", state: "done" },
    ]);
    expect(message?.metadata).toEqual({ status: "done", usage: {} });
    expect(await resumer.reconnectToStream({ chatId: "t-1" })).toBeNull();
  });
});

describe("createServer's bounds", () => {
  it("refuses a bound that is not an integer in its range, with a TypeError naming it", () => {
    const { graph } = gatedGraph();
    expect(() => createServer({ graph: graph as never, maxConcurrentRuns: 0 })).toThrow(
      new TypeError("createServer: maxConcurrentRuns must be an integer ≥ 1, got 0"),
    );
    expect(() => createServer({ graph: graph as never, heartbeatMs: 1.5 })).toThrow(
      new TypeError("createServer: heartbeatMs must be an integer ≥ 0, got 1.5"),
    );
    expect(() => createServer({ graph: graph as never, runBufferEvents: -1 })).toThrow(
      new TypeError("createServer: runBufferEvents must be an integer ≥ 1, got -1"),
    );
  });
});

describe("a restart (a new server, graph and store over the same SQLite file)", () => {
  it("keeps the thread's committed steps; the run id and its stream are gone", async () => {
    const dir = mkdtempSync(join(tmpdir(), "nodestep-bg-"));
    try {
      const file = join(dir, "threads.db");
      const first = new SqliteStateStore({ path: file });
      const a = await start({}, first);
      const started = await a.call("POST", "/api/threads/t1/runs", { ...GO, detach: true });
      const { runId } = started.body as { runId: string };
      await reached(a.call, `/api/threads/t1/runs/${runId}`, 4);
      // The process stops mid-run: its run is cut at the unfinished superstep.
      await a.call("POST", `/api/threads/t1/runs/${runId}/cancel`, {});
      await (server as ListeningServer | null)?.close();
      server = null;
      await first.close();

      const second = new SqliteStateStore({ path: file });
      const b = await start({}, second);
      expect(await b.call("GET", `/api/threads/t1/runs/${runId}/stream`)).toEqual({
        status: 404,
        body: err(
          "UnknownRun",
          `Thread "t1" has no run "${runId}" on this server (finished runs are kept 300000 ms)`,
        ),
      });
      expect(await b.call("GET", "/api/threads/t1/runs")).toEqual({
        status: 200,
        body: { threadId: "t1", runs: [] },
      });
      const state = await b.call("GET", "/api/threads/t1/state");
      expect((state.body as { state: unknown }).state).toEqual({ count: 1 });
      // A run of {} continues the thread from its store.
      b.open();
      const resumed = await b.call("POST", "/api/threads/t1/runs", {});
      expect([resumed.status, (resumed.body as { state: unknown }).state]).toEqual([
        200,
        { count: 3 },
      ]);
      await (server as ListeningServer | null)?.close();
      server = null;
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("keepFinishedRuns", () => {
  it("forgets the oldest finished run beyond the limit", async () => {
    const s = await start({ keepFinishedRuns: 1 });
    s.open();
    const ids: string[] = [];
    for (const thread of ["t1", "t2"]) {
      const started = await s.call("POST", `/api/threads/${thread}/runs`, { ...GO, detach: true });
      const { runId } = started.body as { runId: string };
      await settled(s.call, `/api/threads/${thread}/runs/${runId}`);
      ids.push(runId);
    }
    expect((await s.call("GET", `/api/threads/t1/runs/${ids[0]}`)).status).toBe(404);
    expect(await s.call("GET", "/api/threads/t2/runs")).toMatchObject({
      status: 200,
      body: { threadId: "t2", runs: [{ runId: ids[1], status: "done" }] },
    });
  });
});
