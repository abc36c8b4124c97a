/**
 * `storedReplay` (the UI replay of a run another server started, from the stored events): a
 * `run_started` stored while the history is being read is not missed, nor one stored with no
 * event of the run's stream after it. The run then pauses at its model and sends nothing more,
 * so a wait for its next event alone would never end (the ui-replay test hung so under load).
 */
import { describe, expect, it } from "vitest";
import { HumanMessage } from "../chat/messages.js";
import type { StoredEvent } from "../stores/types.js";
import { STORED_REPLAY_POLL_MS, storedReplay } from "./ui-stream-route.js";

const runStarted: StoredEvent = {
  id: "t-1/main/1",
  threadId: "t-1",
  branchId: "main",
  seq: 1,
  createdAt: 1,
  type: "run_started",
  runId: "r1",
  step: 0,
  taskId: null,
  node: null,
  data: { input: { messages: [] } },
};

/** A run whose `run_started` is stored during the first history read (and its event sent then). */
function racingRun() {
  const waiters: (() => void)[] = [];
  const run = {
    threadId: "t-1",
    branchId: "main",
    runId: "r1",
    finished: false,
    changed: () => new Promise<void>((resolve) => waiters.push(resolve)),
  };
  let reads = 0;
  const graph = {
    async history(): Promise<StoredEvent[]> {
      reads++;
      if (reads === 1) {
        // The event lands while this read is on its way back: its waiters are woken now.
        for (const w of waiters.splice(0)) w();
        return [];
      }
      return [runStarted];
    },
    async getState() {
      return {
        state: { messages: [HumanMessage({ id: "h1", content: "Refund A-1" })] },
        interrupts: [],
      };
    },
  };
  return { run, graph: graph as never, reads: () => reads };
}

describe("storedReplay", () => {
  it("finds a run_started stored while the history was being read", async () => {
    const { run, graph, reads } = racingRun();
    const hung = new Promise<string>((r) => setTimeout(() => r("hung"), 2_000));
    const replay = await Promise.race([storedReplay(graph, run), hung]);
    expect(replay).toEqual({ userMessageId: "h1", prefix: [] });
    expect(reads()).toBe(2);
  });

  it("reads the store again while no event comes: a run_started stored with none after it", async () => {
    // The run's stream sends nothing (changed() never resolves); run_started is stored 3 reads in.
    let reads = 0;
    const graph = {
      async history(): Promise<StoredEvent[]> {
        reads++;
        return reads < 3 ? [] : [runStarted];
      },
      async getState() {
        return { state: { messages: [HumanMessage({ id: "h1", content: "hi" })] }, interrupts: [] };
      },
    } as never;
    const run = {
      threadId: "t-1",
      branchId: "main",
      runId: "r1",
      finished: false,
      changed: () => new Promise<void>(() => {}),
    };
    const t0 = performance.now();
    const hung = new Promise<string>((r) => setTimeout(() => r("hung"), 2_000));
    expect(await Promise.race([storedReplay(graph, run), hung])).toEqual({
      userMessageId: "h1",
      prefix: [],
    });
    expect(reads).toBe(3);
    // Two waits of STORED_REPLAY_POLL_MS between the three reads.
    expect(performance.now() - t0).toBeGreaterThanOrEqual(2 * STORED_REPLAY_POLL_MS - 5);
  });

  it("answers null for a run that finished without a run_started on the branch", async () => {
    const graph = { history: async () => [], getState: async () => ({}) } as never;
    const run = {
      threadId: "t-1",
      branchId: "main",
      runId: "r1",
      finished: true,
      changed: () => new Promise<void>(() => {}),
    };
    expect(await storedReplay(graph, run)).toBeNull();
  });
});
