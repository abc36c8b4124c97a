import { describe, expect, it } from "vitest";
import { RunRegistry } from "./run-registry.js";

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
