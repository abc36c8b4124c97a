/**
 * What a worker that takes a run over reads from the store (`storedRunEnd`), and how long a
 * taken-over run waits for a thread still leased (`busyRetryDelay`). Pure functions: no
 * Redis, no store.
 */
import { describe, expect, it } from "vitest";
import { busyRetryDelay, storedRunEnd } from "./run-takeover.js";

const ev = (type: string, seq: number, data: unknown = null) => ({ type, seq, data }) as never;

describe("storedRunEnd", () => {
  it("says not-started without a run_started", () => {
    expect(storedRunEnd([], -1)).toEqual({ kind: "not-started" });
    expect(storedRunEnd([ev("state_updated", 3)], -1)).toEqual({ kind: "not-started" });
  });

  it("says stopped for a run that started and has no end", () => {
    expect(storedRunEnd([ev("run_started", 4), ev("step_committed", 5)], -1)).toEqual({
      kind: "stopped",
    });
  });

  it("says finished for a run_finished after the last start", () => {
    expect(storedRunEnd([ev("run_started", 4), ev("run_finished", 6)], -1)).toEqual({
      kind: "finished",
    });
  });

  it("reads the stored error of a run_failed, with defaults where it has none", () => {
    const failed = ev("run_failed", 6, { error: { name: "RunCancelledError", message: "stop" } });
    expect(storedRunEnd([ev("run_started", 4), failed], -1)).toEqual({
      kind: "failed",
      type: "RunCancelledError",
      message: "stop",
    });
    expect(storedRunEnd([ev("run_started", 4), ev("run_failed", 6, null)], -1)).toEqual({
      kind: "failed",
      type: "Error",
      message: "",
    });
  });

  it("looks only after the last start, and past the point the run was handed back", () => {
    const before = [ev("run_started", 1), ev("run_finished", 2), ev("run_started", 3)];
    expect(storedRunEnd(before, -1)).toEqual({ kind: "stopped" });
    // The closing worker's run_failed (seq 5) is at or before handedOverAt: not the run's end.
    const handed = [ev("run_started", 4), ev("run_failed", 5), ev("run_started", 6)];
    expect(storedRunEnd(handed.slice(0, 2), 5)).toEqual({ kind: "stopped" });
    expect(storedRunEnd([...handed, ev("run_finished", 8)], 5)).toEqual({ kind: "finished" });
  });
});

describe("busyRetryDelay", () => {
  const retry = { firstDelayMs: 200, maxDelayMs: 5_000, limit: 6 };
  it("doubles from firstDelayMs up to maxDelayMs, then stops at limit", () => {
    expect([0, 1, 2, 3, 4, 5, 6].map((n) => busyRetryDelay(retry, n))).toEqual([
      200,
      400,
      800,
      1600,
      3200,
      5000,
      null,
    ]);
  });
});
