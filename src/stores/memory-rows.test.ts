import { describe, expect, it } from "vitest";
import type { EventRow } from "./internal.js";
import { emptyRows, pushRow, rowAt, rowCount, rowsBetween, SEGMENT_CHARS } from "./memory-rows.js";

const TYPES = ["run_started", "task_finished", "step_committed", "run_finished"] as const;

/** Event `i` of the test log: runs of 7 events, every third with a task and a node. */
function row(i: number, data: string): Omit<EventRow, "seq"> {
  return {
    type: TYPES[i % 4]!,
    runId: `run ${Math.floor(i / 7)} "quoted" \u0001`,
    step: i % 5 === 0 ? null : i,
    taskId: i % 3 === 0 ? `${i}:0` : null,
    node: i % 3 === 0 ? (i % 2 === 0 ? "act]" : null) : i % 11 === 0 ? "think" : null,
    data,
    createdAt: 1_700_000_000_000 + i * 37,
  };
}

describe("memory-rows", () => {
  it("keeps O(log n) segments and gives back every event, alone and in ranges", () => {
    const log = emptyRows();
    const n = 100;
    for (let i = 0; i < n; i++) {
      const r = row(i, JSON.stringify({ i, s: "]\u0002\n" }));
      pushRow(log, r, r.createdAt);
    }
    expect(rowCount(log)).toBe(n);
    // 100 = 64 + 32 + 4 events.
    expect(log.firsts).toEqual([0, 64, 96]);
    const want = (i: number): EventRow => ({
      seq: 1 + i,
      ...row(i, JSON.stringify({ i, s: "]\u0002\n" })),
    });
    for (let i = 0; i < n; i++) expect(rowAt(log, i, 1 + i)).toEqual(want(i));
    expect(rowsBetween(log, 0, n, 1)).toEqual(Array.from({ length: n }, (_, i) => want(i)));
    expect(rowsBetween(log, 60, 70, 61)).toEqual(
      Array.from({ length: 10 }, (_, i) => want(60 + i)),
    );
    expect(rowsBetween(log, 97, 100, 98)).toEqual([want(97), want(98), want(99)]);
    expect(rowsBetween(log, 5, 5, 6)).toEqual([]);
  });

  it("stops joining segments at SEGMENT_CHARS of text", () => {
    const log = emptyRows();
    const big = JSON.stringify("x".repeat(SEGMENT_CHARS / 2 - 100));
    for (let i = 0; i < 4; i++) {
      const r = row(i, big);
      pushRow(log, r, r.createdAt);
    }
    // Two events fit in one segment; a third would pass the bound.
    expect(log.firsts).toEqual([0, 2]);
    expect(log.segments.every((s) => s.length <= SEGMENT_CHARS)).toBe(true);
    expect(rowsBetween(log, 0, 4, 1).map((r) => [r.seq, r.runId, r.data.length])).toEqual([
      [1, 'run 0 "quoted" \u0001', big.length],
      [2, 'run 0 "quoted" \u0001', big.length],
      [3, 'run 0 "quoted" \u0001', big.length],
      [4, 'run 0 "quoted" \u0001', big.length],
    ]);
  });

  it("writes each record as its head's JSON items, U+0001, the packed data, U+0002", () => {
    const log = emptyRows();
    const at = { taskId: null, node: null };
    pushRow(
      log,
      {
        ...at,
        type: "run_started",
        runId: 'r "1"',
        step: null,
        data: '{"input":null}',
      },
      1000,
    );
    pushRow(
      log,
      {
        ...at,
        type: "task_finished",
        runId: 'r "1"',
        step: 0,
        taskId: "0:0",
        data: "null",
      },
      1012,
    );
    pushRow(
      log,
      {
        ...at,
        type: "step_committed",
        runId: "r2",
        step: 12,
        node: "n\u0001",
        data: "{}",
      },
      1012.5,
    );
    // Type code, step, ms after the first event, run (its id, or the index of the event that
    // holds it), then task and node when either is set; "null" and '{"input":' packed.
    expect(log.segments).toEqual([
      '0,null,0,"r \\"1\\""\u0001{"input":\u001b}\u00021,0,12,0,"0:0",null\u0001\u001b\u0002',
      '4,12,12.5,"r2",null,"n\\u0001"\u0001{}\u0002',
    ]);
  });
});
