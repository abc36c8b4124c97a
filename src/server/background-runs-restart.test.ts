/**
 * Background runs on the server, over real HTTP: detached runs, streams that go on when their
 * client leaves, joining by run id from the start or from `Last-Event-ID`, listing and
 * cancelling, the event buffer's bound (410), the concurrent-run limit (429), heartbeats, the
 * idle timeout, and the UI stream's resume route.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SqliteStateStore } from "../integrations/sqlite/index.js";
import { err, GO, reached, server, setServer, settled, start } from "./background-runs.fixture.js";
import type { ListeningServer } from "./index.js";

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
      setServer(null);
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
      setServer(null);
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
