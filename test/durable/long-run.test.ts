/**
 * A long conversation (issue 3, item 10: "memory stays flat; nothing holds every past step
 * alive"), checked by structure rather than by timing or heap sizes: over 2,000 agent turns on
 * a MemoryStateStore, every turn appends the same events of the same size, the log is never
 * read again after the first turn (the graph keeps one folded position per thread), and the
 * folded positions kept in snapshots (by runs, the first at SNAPSHOT_AFTER_RUN_EVENTS events,
 * then as `snapshotDue` says) hold no
 * per-step data once a run has completed; a cold read writes nothing.
 */
import { expect, it } from "vitest";
import { buildReactAgent, runAgent } from "../../src/agents/index.js";
import type { Chat, ChatRequest, ChatResponseInit } from "../../src/chat/types.js";
import {
  SNAPSHOT_AFTER_RUN_EVENTS,
  SNAPSHOT_RENEW_EVENTS,
  SNAPSHOT_TAIL_SHARE,
} from "../../src/graph/load-position.js";
import { MemoryStateStore } from "../../src/stores/index.js";
import type { Snapshot, StoredEvent } from "../../src/stores/types.js";

/** A chat that answers "ok" and keeps nothing (ScriptedChat records every request). */
const echo: Chat = {
  model: "echo",
  async complete(_request: ChatRequest): Promise<ChatResponseInit> {
    return { content: "ok", toolCalls: [] };
  },
  stream() {
    throw new Error("not used");
  },
};

/** A MemoryStateStore that counts log reads and keeps the snapshots it is given. */
class CountingStore extends MemoryStateStore {
  reads = 0;
  snapshots: Snapshot[] = [];
  override async read(
    threadId: string,
    branchId: string,
    options?: { afterSeq?: number; uptoSeq?: number },
  ): Promise<StoredEvent[]> {
    this.reads++;
    return super.read(threadId, branchId, options);
  }
  override async saveSnapshot(threadId: string, branchId: string, s: Snapshot): Promise<void> {
    this.snapshots.push(s);
    return super.saveSnapshot(threadId, branchId, s);
  }
}

it("2,000 turns: flat events per turn, no log replay, no per-step data kept", async () => {
  const store = new CountingStore();
  const agent = buildReactAgent(echo, { tools: [], stateStore: store });
  const TURNS = 2000;
  const readsAfter: number[] = [];
  for (let i = 1; i <= TURNS; i++) {
    expect(await runAgent(agent, `question ${i % 10}`, { threadId: "long" })).toBe("ok");
    readsAfter.push(store.reads);
  }
  // One read of the (empty) log when the thread is first opened; none after.
  expect(readsAfter[0]).toBe(1);
  expect(readsAfter[TURNS - 1]).toBe(1);

  const events = await store.read("long", "main");
  const byRun = new Map<string, StoredEvent[]>();
  for (const e of events) byRun.set(e.runId, [...(byRun.get(e.runId) ?? []), e]);
  const runs = [...byRun.values()];
  expect(runs).toHaveLength(TURNS);
  const types = (run: StoredEvent[]) => run.map((e) => e.type);
  const size = (run: StoredEvent[]) => run.reduce((n, e) => n + JSON.stringify(e.data).length, 0);
  for (const turn of [10, 100, 1000, 2000]) {
    expect(types(runs[turn - 1]!)).toEqual(["run_started", "step_committed", "run_finished"]);
  }
  // What a turn writes does not grow with the conversation: turns 10 and 2,000 write the same
  // bytes up to the digits of the step numbers (4 of them, at most 3 more digits each).
  expect(size(runs[TURNS - 1]!) - size(runs[9]!)).toBeLessThanOrEqual(12);
  expect(size(runs[TURNS - 1]!) - size(runs[9]!)).toBeGreaterThanOrEqual(0);

  // A graph that keeps the thread's position in memory writes its first snapshot when a run
  // ends the branch SNAPSHOT_AFTER_RUN_EVENTS (4,096) events in: at the end of turn 1,366 (3
  // events a turn: seq 4,098); then a run renews it when the tail after it reaches 512 events
  // and a 16th of the branch (snapshotDue): 4,611, 5,124, 5,637. A cold load (a new graph, as
  // in a new process) reads the last and folds the tail (363 events), and writes nothing.
  expect(SNAPSHOT_AFTER_RUN_EVENTS).toBe(4096);
  expect([SNAPSHOT_RENEW_EVENTS, SNAPSHOT_TAIL_SHARE]).toEqual([512, 16]);
  const byRuns = [4098, 4611, 5124, 5637];
  expect(store.snapshots.map((s) => s.seq)).toEqual(byRuns);
  const cold = buildReactAgent(echo, { tools: [], stateStore: store });
  expect((await cold.getState("long")).state.messages).toHaveLength(2 * TURNS);
  expect(store.snapshots.map((s) => s.seq)).toEqual(byRuns);
  // Reads: the first turn's, this test's own (above), and the cold load's one read of the tail.
  expect(store.reads).toBe(3);
  for (const kept of store.snapshots) {
    const data = kept.data as Record<string, unknown>;
    expect([data.known, data.caches, data.interrupts, data.answers, data.tasks]).toEqual([
      {},
      {},
      [],
      {},
      [],
    ]);
  }
  const last = store.snapshots.at(-1)!.data as Record<string, unknown>;
  expect(Object.keys(last).sort()).toEqual([
    "answers",
    "breakpoint",
    "caches",
    "definition",
    "format",
    "interrupts",
    "known",
    "lastEventId",
    "lastSeq",
    "lastStatus",
    "layout",
    "originRunId",
    "packed",
    "passed",
    "runBranchId",
    "state",
    "step",
    "tasks",
  ]);
  expect([last.known, last.caches, last.interrupts, last.answers, last.tasks]).toEqual([
    {},
    {},
    [],
    {},
    [],
  ]);
  // The messages are kept packed (src/state/messages-pack.ts): a human message as
  // [type, id, content], an AI answer whose other keys hold their defaults the same.
  const lastState = last.state as { messages: unknown[][] };
  expect([last.format, last.packed]).toEqual([3, ["messages"]]);
  expect(lastState.messages.map((m) => [m.length, m[0]]).slice(0, 2)).toEqual([
    [3, "human"],
    [3, "ai"],
  ]);
  const snap = await agent.getState("long");
  expect(snap.state.messages).toHaveLength(2 * TURNS);
  expect(snap.step).toBe(TURNS);
  expect(snap.next).toEqual([]);
});
