/**
 * What a worker that takes a run over reads from the store (`storedRunEnd`), and how long a
 * taken-over run waits for a thread still leased (`busyRetryDelay`). Pure functions: no
 * Redis, no store.
 */
import { describe, expect, it } from "vitest";
import { RunCancelledError } from "../../errors/index.js";
import { busyRetryDelay, handOverError, isHandOver, storedRunEnd } from "./run-takeover.js";

const ev = (type: string, seq: number, data: unknown = null) => ({ type, seq, data }) as never;

describe("storedRunEnd", () => {
  it("says not-started without a run_started", () => {
    expect(storedRunEnd([], -1, "run-1")).toEqual({ kind: "not-started" });
    expect(storedRunEnd([ev("state_updated", 3)], -1, "run-1")).toEqual({ kind: "not-started" });
  });

  it("says stopped for a run that started and has no end", () => {
    expect(storedRunEnd([ev("run_started", 4), ev("step_committed", 5)], -1, "run-1")).toEqual({
      kind: "stopped",
    });
  });

  it("says finished for a run_finished after the last start", () => {
    expect(storedRunEnd([ev("run_started", 4), ev("run_finished", 6)], -1, "run-1")).toEqual({
      kind: "finished",
    });
  });

  it("reads the stored error of a run_failed, with defaults where it has none", () => {
    const failed = ev("run_failed", 6, { error: { name: "RunCancelledError", message: "stop" } });
    expect(storedRunEnd([ev("run_started", 4), failed], -1, "run-1")).toEqual({
      kind: "failed",
      type: "RunCancelledError",
      message: "stop",
    });
    expect(storedRunEnd([ev("run_started", 4), ev("run_failed", 6, null)], -1, "run-1")).toEqual({
      kind: "failed",
      type: "Error",
      message: "",
    });
  });

  it("looks only after the last start, and past the point the run was handed back", () => {
    const before = [ev("run_started", 1), ev("run_finished", 2), ev("run_started", 3)];
    expect(storedRunEnd(before, -1, "run-1")).toEqual({ kind: "stopped" });
    // The closing worker's run_failed (seq 5) is at or before handedOverAt: not the run's end.
    const handed = [ev("run_started", 4), ev("run_failed", 5), ev("run_started", 6)];
    expect(storedRunEnd(handed.slice(0, 2), 5, "run-1")).toEqual({ kind: "stopped" });
    expect(storedRunEnd([...handed, ev("run_finished", 8)], 5, "run-1")).toEqual({
      kind: "finished",
    });
  });
});

describe("hand-over ends", () => {
  const handOver = {
    error: {
      name: "RunCancelledError",
      message:
        'Run "run-1" was handed back to the queue by its closing worker; another worker continues it',
    },
  };

  it("stores the hand-over as a RunCancelledError naming the run, its reason as cause", () => {
    const e = handOverError("run-1", "closing");
    expect(e).toBeInstanceOf(RunCancelledError);
    expect({ name: e.name, message: e.message, cause: e.cause }).toEqual({
      ...handOver.error,
      cause: "closing",
    });
    expect(isHandOver(handOver, "run-1")).toBe(true);
    expect(isHandOver(handOver, "run-2")).toBe(false);
    expect(isHandOver({ error: { ...handOver.error, name: "Error" } }, "run-1")).toBe(false);
    expect(isHandOver({ error: { name: "RunCancelledError", message: "stop" } }, "run-1")).toBe(
      false,
    );
    expect(isHandOver(null, "run-1")).toBe(false);
  });

  it("continues a run whose last end is its hand-over, without handedOverAt", () => {
    const handed = [ev("run_started", 4), ev("step_committed", 5), ev("run_failed", 6, handOver)];
    expect(storedRunEnd(handed, -1, "run-1")).toEqual({ kind: "stopped" });
    // Another run's hand-over, or a cancel, is an end.
    expect(storedRunEnd(handed, -1, "run-2")).toEqual({
      kind: "failed",
      type: "RunCancelledError",
      message: handOver.error.message,
    });
    // The taker's own part ends it after the hand-over.
    const taken = [...handed, ev("run_started", 7), ev("run_finished", 9)];
    expect(storedRunEnd(taken, -1, "run-1")).toEqual({ kind: "finished" });
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
