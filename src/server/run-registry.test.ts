/**
 * The run registry: runs being started are waited for (the UI stream's resume route), and the run
 * buffer reads by index (issue 20, item 4: a 10,000-token run was read by filtering the whole
 * buffer after each write).
 */
import { describe, expect, it } from "vitest";
import { RunRegistry, ServerRun } from "./run-registry.js";

const options = {
  bufferEvents: 10,
  keepFinishedMs: 60_000,
  keepFinishedRuns: 10,
  maxConcurrentRuns: 4,
};

describe("RunRegistry.currentOrStarting (the UI stream's resume route)", () => {
  it("waits for a run being started on the branch, and gives it once created", async () => {
    const registry = new RunRegistry(options);
    expect(await registry.currentOrStarting("t1", "main")).toBeNull();
    const started = registry.starting("t1", "main");
    const other = registry.starting("t1", "fork");
    let answer: unknown = "pending";
    const asked = registry.currentOrStarting("t1", "main").then((r) => {
      answer = r;
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(answer).toBe("pending");
    const run = registry.create(
      { threadId: "t1", branchId: "main", detached: true },
      new AbortController(),
    );
    started(run);
    await asked;
    expect(answer).toBe(run);
    other(null);
    expect(await registry.currentOrStarting("t1", "fork")).toBeNull();
  });

  it("gives null when the run being started fails to start (and no other goes on)", async () => {
    const registry = new RunRegistry(options);
    const started = registry.starting("t1", "main");
    const asked = registry.currentOrStarting("t1", "main");
    started(null);
    expect(await asked).toBeNull();
    // Settled runs are forgotten: a later question does not wait.
    expect(await registry.currentOrStarting("t1", "main")).toBeNull();
  });
});

function run(limit: number, events: number): ServerRun {
  const r = new ServerRun(
    { threadId: "t", branchId: "main", detached: false },
    limit,
    new AbortController(),
  );
  for (let i = 1; i <= events; i++) r.push("tokens", { i });
  return r;
}

describe("ServerRun.since", () => {
  it("answers the events after an id, in order", () => {
    const r = run(10, 5);
    expect(r.since(0)?.map((e) => e.id)).toEqual([1, 2, 3, 4, 5]);
    expect(r.since(3)).toEqual([
      { id: 4, event: "tokens", data: { i: 4 } },
      { id: 5, event: "tokens", data: { i: 5 } },
    ]);
    expect(r.since(5)).toEqual([]);
  });

  it("keeps the last `limit` events as more come, and refuses ids dropped before them", () => {
    const r = run(4, 25);
    expect(r.firstBufferedId).toBe(22);
    expect(r.lastEventId).toBe(25);
    expect(r.since(21)?.map((e) => e.id)).toEqual([22, 23, 24, 25]);
    expect(r.since(23)?.map((e) => (e.data as { i: number }).i)).toEqual([24, 25]);
    expect(r.since(20)).toBe(null);
    r.push("end", { status: "done" });
    expect(r.since(24)?.map((e) => [e.id, e.event])).toEqual([
      [25, "tokens"],
      [26, "end"],
    ]);
    expect(r.firstBufferedId).toBe(23);
  });
});

describe("ServerRun of a run queue (status queued)", () => {
  it("is queued and not finished until its first event, then running, then how it ended", () => {
    const run = new ServerRun(
      { threadId: "t1", branchId: "main", detached: true, queued: true },
      10,
      new AbortController(),
    );
    expect([run.status, run.finished, run.info().status]).toEqual(["queued", false, "queued"]);
    run.pushAt(1, "run", { threadId: "t1", branchId: "main", runId: run.runId });
    expect([run.status, run.finished]).toEqual(["running", false]);
    run.pushAt(2, "end", {});
    run.finish("done");
    expect([run.status, run.finished, run.info().status]).toEqual(["done", true, "done"]);
  });

  it("a run cancelled before a worker takes it ends cancelled from queued", () => {
    const run = new ServerRun(
      { threadId: "t1", branchId: "main", detached: true, queued: true },
      10,
      new AbortController(),
    );
    run.finish("cancelled");
    expect([run.status, run.finished]).toEqual(["cancelled", true]);
  });

  it("a run of this process starts running", () => {
    const run = new ServerRun(
      { threadId: "t1", branchId: "main", detached: true },
      10,
      new AbortController(),
    );
    expect([run.status, run.finished]).toEqual(["running", false]);
  });
});
