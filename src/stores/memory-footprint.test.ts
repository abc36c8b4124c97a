import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { emptyRows, pushRow, rowAt, rowCount } from "./memory-rows.js";
import { MemoryStateStore } from "./memory-state-store.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const heapAfterGc = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

describe("MemoryStateStore's footprint", () => {
  it("keeps a branch's events as records in joined segments and gives each back as it was appended", () => {
    const log = emptyRows();
    pushRow(
      log,
      {
        type: "run_started",
        runId: "r1",
        step: 0,
        taskId: null,
        node: null,
        data: '{"a":1}',
      },
      1_700_000_000_000,
    );
    pushRow(
      log,
      {
        type: "task_finished",
        runId: "r1",
        step: 3,
        taskId: "3:0",
        node: "act",
        data: "null",
      },
      1_700_000_000_250,
    );
    expect(rowCount(log)).toBe(2);
    // One segment of two records: a head, U+0001, the data in its short form ("null" is one
    // character, U+001B), U+0002; the run id once.
    expect(log.segments).toEqual([
      '0,0,0,"r1"\u0001{"a":1}\u00021,3,250,0,"3:0","act"\u0001\u001b\u0002',
    ]);
    expect(rowAt(log, 1, 7)).toEqual({
      seq: 7,
      type: "task_finished",
      runId: "r1",
      step: 3,
      taskId: "3:0",
      node: "act",
      createdAt: 1_700_000_000_250,
      data: "null",
    });
    expect(rowAt(log, 0, 6).createdAt).toBe(1_700_000_000_000);
  });

  it("holds an idle thread's events in at most 24 heap bytes an event beyond their JSON text", async () => {
    // Measured on Node 20 x64: 17.7 bytes (a 12-character head, two delimiters, the segments'
    // headers); 7 slots an event, as before, took 128, and an object an event 166.
    const store = new MemoryStateStore({ now: () => 1_700_000_000_000 });
    const threads = 20;
    const events = 2000;
    let text = 0;
    const before = heapAfterGc();
    for (let t = 0; t < threads; t++) {
      for (let e = 0; e < events; e++) {
        const data = { i: e, note: `event ${e} of thread ${t}` };
        text += JSON.stringify(data).length;
        await store.append(
          `thread-${t}`,
          "main",
          [{ type: "step_committed", runId: `run-${t}`, step: e, taskId: null, node: null, data }],
          e,
        );
      }
    }
    const perEvent = (heapAfterGc() - before - text) / (threads * events);
    expect(perEvent).toBeLessThanOrEqual(24);
    // Every event reads back as appended.
    const read = await store.read("thread-7", "main", { afterSeq: 1998 });
    expect(read.map((e) => [e.seq, e.step, e.data, e.createdAt])).toEqual([
      [1999, 1998, { i: 1998, note: "event 1998 of thread 7" }, 1_700_000_000_000],
      [2000, 1999, { i: 1999, note: "event 1999 of thread 7" }, 1_700_000_000_000],
    ]);
    expect((await store.getEvent("thread-7/main/1"))?.data).toEqual({
      i: 0,
      note: "event 0 of thread 7",
    });
    expect(await store.getEvent("thread-7/main/2001")).toBeNull();
  });
});
