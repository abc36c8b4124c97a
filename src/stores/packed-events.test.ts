import { describe, expect, it } from "vitest";
import { unpackEvents } from "./packed-events.js";

const row = (seq: number, data: string, type = "run_finished") =>
  `[${seq},"${type}","r1",null,"0:0","think",1700000000000,${data}]`;

describe("unpackEvents", () => {
  it("makes the events decodeEvent makes, keys in the same order", () => {
    const text = `[${row(4, '{"status":"completed"}')},${row(5, "[1]", "task_finished")}]`;
    const events = unpackEvents("t/1", "b", text, 3, 2);
    expect(events).toEqual([
      {
        id: "t/1/b/4",
        threadId: "t/1",
        branchId: "b",
        seq: 4,
        createdAt: 1700000000000,
        type: "run_finished",
        runId: "r1",
        step: null,
        taskId: "0:0",
        node: "think",
        data: { status: "completed" },
      },
      {
        id: "t/1/b/5",
        threadId: "t/1",
        branchId: "b",
        seq: 5,
        createdAt: 1700000000000,
        type: "task_finished",
        runId: "r1",
        step: null,
        taskId: "0:0",
        node: "think",
        data: [1],
      },
    ]);
    expect(Object.keys(events![0]!)).toEqual([
      "id",
      "threadId",
      "branchId",
      "seq",
      "createdAt",
      "type",
      "runId",
      "step",
      "taskId",
      "node",
      "data",
    ]);
    expect(unpackEvents("t", "main", null, 7, 0)).toEqual([]);
  });

  it("returns null for anything that is not exactly the rows asked for", () => {
    const ok = `[${row(1, "{}")},${row(2, "{}")}]`;
    expect(unpackEvents("t", "main", ok, 0, 2)).not.toBeNull();
    // Fewer or more rows than counted; text that is not JSON; no rows where some were counted.
    expect(unpackEvents("t", "main", ok, 0, 3)).toBeNull();
    expect(unpackEvents("t", "main", ok.slice(0, -1), 0, 2)).toBeNull();
    expect(unpackEvents("t", "main", null, 0, 1)).toBeNull();
    // A seq out of order or not the one expected.
    expect(unpackEvents("t", "main", ok, 1, 2)).toBeNull();
    expect(unpackEvents("t", "main", `[${row(2, "{}")},${row(1, "{}")}]`, 0, 2)).toBeNull();
    // A data column that is not one JSON value but closes its row and opens another.
    const forged = `[${row(1, `{}],[2,"run_started","r9",null,null,null,1,{}`)},${row(2, "{}")}]`;
    expect(unpackEvents("t", "main", forged, 0, 2)).toBeNull();
    // An unknown type, a creation time or run id of the wrong kind, a row of another length.
    expect(unpackEvents("t", "main", `[${row(1, "{}", "mystery")}]`, 0, 1)).toBeNull();
    expect(
      unpackEvents("t", "main", '[[1,"run_finished","r1",null,null,null,"x",{}]]', 0, 1),
    ).toBeNull();
    expect(
      unpackEvents("t", "main", '[[1,"run_finished",7,null,null,null,1,{}]]', 0, 1),
    ).toBeNull();
    expect(unpackEvents("t", "main", '[[1,"run_finished","r1",null,null,1,{}]]', 0, 1)).toBeNull();
    expect(unpackEvents("t", "main", '{"0":1}', 0, 1)).toBeNull();
  });
});
