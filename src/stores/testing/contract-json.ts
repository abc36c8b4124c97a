/**
 * The `StateStore` contract (contract.ts), values that do not survive JSON, refused with their path.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { ConcurrentWriteError, StateStoreError } from "../../errors/index.js";
import type { JsonValue } from "../../json/index.js";
import type { EventType, StateStore } from "../types.js";
import { type ContractContext, ev, rejects } from "./contract-helpers.js";

/** Register the contract tests of values that do not survive JSON, refused with their path. */
export function describeJsonContract(ctx: ContractContext): void {
  let store: StateStore;
  beforeEach(() => {
    store = ctx.store();
  });

  describe("non-JSON data", () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const cases: [string, unknown, string][] = [
      ["undefined in an array", { list: [1, undefined] }, "events[1].data.list[1]"],
      ["NaN", { n: Number.NaN }, "events[1].data.n"],
      ["Infinity", [Number.POSITIVE_INFINITY], "events[1].data[0]"],
      ["a Date", { at: new Date(0) }, "events[1].data.at"],
      ["a function", { f: () => 1 }, "events[1].data.f"],
      ["a cycle", { deep: cyclic }, "events[1].data.deep.self"],
      ["a Map", new Map(), "events[1].data"],
      ["a bigint", { big: 1n }, "events[1].data.big"],
      ["undefined at the top", undefined, "events[1].data"],
    ];
    for (const [what, data, field] of cases) {
      it(`refuses ${what} with the field's path and writes nothing`, async () => {
        await store.append("t1", "main", [ev("run_started", "first")], 0);
        const err = await rejects(
          store.append(
            "t1",
            "main",
            [ev("task_finished", "fine"), ev("task_finished", data as JsonValue)],
            1,
          ),
          StateStoreError,
        );
        expect(err).not.toBeInstanceOf(ConcurrentWriteError);
        expect(err.field).toBe(field);
        expect(err.threadId).toBe("t1");
        expect(err.branchId).toBe("main");
        expect((await store.getBranch("t1", "main"))?.lastSeq).toBe(1);
        expect((await store.read("t1", "main")).map((e) => e.data)).toEqual(["first"]);
      });
    }

    it("refuses a bad event shape and does not create the thread", async () => {
      const bad = { ...ev("run_started", 1), type: "nonsense" as EventType };
      const err = await rejects(store.append("t1", "main", [bad], 0), StateStoreError);
      expect(err.field).toBe("events[0].type");
      const err2 = await rejects(
        store.append("t1", "main", [{ ...ev("run_started", 1), step: 1.5 }], 0),
        StateStoreError,
      );
      expect(err2.field).toBe("events[0].step");
      expect(await store.getBranch("t1", "main")).toBeNull();
    });

    it("refuses a run id, task id or node with a lone surrogate (it would not read back as written)", async () => {
      await store.append("t1", "main", [ev("run_started", "first")], 0);
      const bad: [string, Record<string, string>][] = [
        ["runId", { runId: "r\uD800" }],
        ["taskId", { taskId: "\uDC00k" }],
        ["node", { node: "n\uD83D" }],
      ];
      for (const [field, fields] of bad) {
        const err = await rejects(
          store.append(
            "t1",
            "main",
            [ev("task_finished", 1), { ...ev("task_finished", 2), ...fields }],
            1,
          ),
          StateStoreError,
        );
        expect([err.message, err.field]).toEqual([
          `Cannot append to thread "t1" branch "main": events[1].${field} must be well-formed text (no lone surrogates)`,
          `events[1].${field}`,
        ]);
      }
      // Well-formed text outside the BMP is kept as written.
      const [e] = await store.append(
        "t1",
        "main",
        [
          {
            ...ev("task_finished", 1),
            runId: "r\u{1F600}",
            taskId: "k\u{1F600}",
            node: "n\u{1F600}",
          },
        ],
        1,
      );
      expect([e!.runId, e!.taskId, e!.node]).toEqual(["r\u{1F600}", "k\u{1F600}", "n\u{1F600}"]);
      const [back] = await store.read("t1", "main", { afterSeq: 1 });
      expect([back!.runId, back!.taskId, back!.node]).toEqual([
        "r\u{1F600}",
        "k\u{1F600}",
        "n\u{1F600}",
      ]);
    });

    it("drops undefined object properties as JSON does", async () => {
      await store.append(
        "t1",
        "main",
        [ev("task_finished", { a: 1, b: undefined } as unknown as JsonValue)],
        0,
      );
      expect((await store.read("t1", "main"))[0]!.data).toEqual({ a: 1 });
    });
  });
}
