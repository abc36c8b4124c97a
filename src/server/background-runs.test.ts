/**
 * Background runs on the server, over real HTTP: detached runs, streams that go on when their
 * client leaves, joining by run id from the start or from `Last-Event-ID`, listing and
 * cancelling, the event buffer's bound (410), the concurrent-run limit (429), heartbeats, the
 * idle timeout, and the UI stream's resume route.
 */

import { describe, expect, it } from "vitest";
import {
  brief,
  err,
  GO,
  parseSse,
  RUN_INFO,
  reached,
  readUntil,
  settled,
  start,
} from "./background-runs.fixture.js";

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
