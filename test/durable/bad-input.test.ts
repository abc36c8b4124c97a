/**
 * Bad input through the graph (issue 3, item 10), on every store: values that do not survive
 * JSON, unknown thread, branch and event ids, damaged rows and data an incompatible version
 * wrote. Each gives a clear, typed error, never a wrong or silently emptied state.
 */
import Database from "better-sqlite3";
import pg from "pg";
import { expect, it } from "vitest";
import { z } from "zod";
import { StateStoreError, UnknownBranchError, UnknownEventError } from "../../src/errors/index.js";
import { Graph, node, START } from "../../src/graph/index.js";
import { END } from "../../src/graph/routing.js";
import type { PostgresStateStore } from "../../src/integrations/postgres/index.js";
import type { SqliteStateStore } from "../../src/integrations/sqlite/index.js";
import { defineState, reducer } from "../../src/state/index.js";
import type { StateStore } from "../../src/stores/types.js";
import { expectError } from "../helpers.js";
import { describeStores, PG_URL } from "./stores.js";

const State = defineState({
  note: z.unknown().default(null),
  count: reducer(z.number().default(0), (a, b) => a + b),
});
type S = typeof State.State;

function counterGraph(store: StateStore, note: () => unknown = () => "fine") {
  const step = node((_s: S) => ({ count: 1, note: note() }), { name: "step" });
  return new Graph(State, { stateStore: store }).flow(START.to(step), step.to(END));
}

describeStores("bad input", (fx) => {
  it("a state value that does not survive JSON raises StateStoreError naming the field", async () => {
    const store = await fx.open();
    const bad = counterGraph(store, () => ({ when: { at: Number.NaN } }));
    const e = await expectError(
      () => bad.invoke({}, { threadId: "t" }),
      StateStoreError,
      'Cannot store the update of node "step": note.when.at is not JSON (NaN is not a finite number)',
    );
    expect(e.field).toBe("note.when.at");
    const e2 = await expectError(
      () => bad.invoke({ note: { list: [1, undefined] } }, { threadId: "t2" }),
      StateStoreError,
      "Cannot store the update of the run input: note.list[1] is not JSON (undefined is not JSON (use null))",
    );
    expect(e2.field).toBe("note.list[1]");
    await expectError(
      () => bad.invoke({ note: { n: 10n } }, { threadId: "t3" }),
      StateStoreError,
      "Cannot store the update of the run input: note.n is not JSON (a bigint is not JSON)",
    );
    // The failed step left the state as it was.
    const snap = await counterGraph(store).getState("t");
    expect(snap.state).toEqual({ note: null, count: 0 });
    expect(snap.status).toBe("failed");
  });

  it("unknown thread, branch and event ids raise typed errors", async () => {
    const store = await fx.open();
    const graph = counterGraph(store);
    await graph.invoke({}, { threadId: "t" });
    const e = await expectError(
      () => graph.invoke(null, { threadId: "never" }),
      UnknownBranchError,
      'Thread "never" (branch "main") has no history to continue; start it with an input',
    );
    expect([e.threadId, e.branchId]).toEqual(["never", "main"]);
    await expectError(
      () => graph.getState("t", { branchId: "nope" }),
      UnknownBranchError,
      'Thread "t" has no branch "nope"',
    );
    await expectError(
      () => graph.history("t", { branchId: "nope" }),
      UnknownBranchError,
      'Thread "t" has no branch "nope". Branches other than "main" are made with createBranch.',
    );
    await expectError(
      () => graph.invoke({}, { threadId: "t", branchId: "nope" }),
      UnknownBranchError,
      'Thread "t" has no branch "nope". Branches other than "main" are made with createBranch.',
    );
    const ev = await expectError(
      () => graph.getState("t", { eventId: "t/main/99" }),
      UnknownEventError,
      'Event "t/main/99" is not in the history of thread "t" (branch "main")',
    );
    expect(ev.eventId).toBe("t/main/99");
    await expectError(
      () => graph.fork("t", { eventId: "t/main/99" }),
      UnknownEventError,
      'Thread "t" has no event "t/main/99". Event ids are "<threadId>/<branchId>/<seq>" as listed by `nodestep history <thread>` or by getState and history.',
    );
    await expectError(
      () => graph.fork("t", { eventId: "other/main/1" }),
      UnknownEventError,
      'Thread "t" has no event "other/main/1". Event ids are "<threadId>/<branchId>/<seq>" as listed by `nodestep history <thread>` or by getState and history.',
    );
    // A thread with no events reads as empty (it is how a new thread starts), with no status.
    expect(await graph.getState("never")).toEqual({
      state: { note: null, count: 0 },
      step: 0,
      next: [],
      interrupts: [],
      status: null,
      lastEventId: null,
      breakpoint: null,
    });
  });

  it("an event an incompatible version wrote gives a clear StateStoreError, not a wrong state", async () => {
    const store = await fx.open();
    await counterGraph(store).invoke({}, { threadId: "t" });
    const last = (await store.getBranch("t", "main"))!.lastSeq;
    await store.append(
      "t",
      "main",
      [
        {
          type: "step_committed",
          runId: "future",
          step: 1,
          taskId: null,
          node: null,
          data: { order: ["1:0"], next: [] },
        },
      ],
      last,
    );
    const e = await expectError(
      () => counterGraph(store).getState("t"),
      StateStoreError,
      `Thread "t" cannot be rebuilt at event t/main/${last + 1} (step_committed): superstep 1 commits task 1:0, whose result is not in the log. The log is damaged or was written by an incompatible version.`,
    );
    expect([e.threadId, e.branchId]).toEqual(["t", "main"]);
    await expectError(
      () => counterGraph(store).invoke({}, { threadId: "t" }),
      StateStoreError,
      e.message,
    );
  });

  it("a snapshot of an unknown format is ignored: the state is rebuilt from the log", async () => {
    const store = await fx.open();
    const graph = counterGraph(store);
    for (let i = 0; i < 3; i++) await graph.invoke({}, { threadId: "t" });
    const last = (await store.getBranch("t", "main"))!.lastSeq;
    await store.saveSnapshot("t", "main", {
      seq: last,
      data: { format: 99, state: { note: "wrong", count: 1000 } },
    });
    const snap = await counterGraph(store).getState("t");
    expect(snap.state).toEqual({ note: "fine", count: 3 });
  });

  if (fx.kind !== "memory") {
    it("a damaged row gives a clear StateStoreError through graph.getState", async () => {
      const store = await fx.open();
      await counterGraph(store).invoke({}, { threadId: "t" });
      await damageEvent(store, fx.kind, "t", 2);
      const e = await expectError(
        () => counterGraph(store).getState("t"),
        StateStoreError,
        'Event 2 of thread "t" branch "main" is damaged: its data is not valid JSON. The store was changed outside nodestep or corrupted; restore it from a backup.',
      );
      expect([e.threadId, e.branchId]).toEqual(["t", "main"]);
    });
  }
});

/** Overwrite an event's data with text that is not JSON, behind the store's back. */
async function damageEvent(
  store: StateStore,
  kind: string,
  threadId: string,
  seq: number,
): Promise<void> {
  if (kind === "sqlite") {
    const db = new Database((store as SqliteStateStore).path);
    try {
      const r = db
        .prepare(
          "UPDATE events SET data = ? WHERE thread_id = ? AND branch_id = 'main' AND seq = ?",
        )
        .run('{"outcome": ', threadId, seq);
      expect(r.changes).toBe(1);
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    const r = await client.query(
      `UPDATE "${(store as PostgresStateStore).schema}".events SET data = $1 WHERE thread_id = $2 AND branch_id = 'main' AND seq = $3`,
      ['{"outcome": ', threadId, seq],
    );
    expect(r.rowCount).toBe(1);
  } finally {
    await client.end();
  }
}
