/**
 * Issue 20, item 6: a run that ends its branch SNAPSHOT_AFTER_RUN_EVENTS or more events past
 * the branch's snapshot keeps a new one; it is exactly what the stored events fold to (the
 * store is the truth), and a new process reads the snapshot and the tail only.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { SqliteStateStore } from "../integrations/sqlite/index.js";
import { defineState, reducer } from "../state/define-state.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import type { StateStore, StoredEvent } from "../stores/types.js";
import { Graph } from "./graph.js";
import {
  loadPosition,
  SNAPSHOT_AFTER_RUN_EVENTS,
  SNAPSHOT_RENEW_EVENTS,
  SNAPSHOT_TAIL_SHARE,
  snapshotDue,
} from "./load-position.js";
import { node, START } from "./node.js";
import { END, when } from "./routing.js";

const dir = mkdtempSync(join(tmpdir(), "nodestep-snap-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const State = defineState({
  count: z.number().default(0),
  limit: z.number().default(0),
  log: reducer(z.array(z.unknown()).default([]), (a: unknown[], b: unknown[]) => [...a, ...b]),
});
type S = typeof State.State;

/** One node looping until `count` reaches `limit`: a superstep (one event) per step. */
function loop(store: StateStore, part?: unknown): Graph<typeof State> {
  const step = node((s: S) => ({ count: s.count + 1, log: s.count === 0 && part ? [part] : [] }), {
    name: "step",
  });
  return new Graph(State, { name: "loop", stateStore: store, maxSteps: 10_000 }).flow(
    START.to(step),
    step.to(when((s: S) => s.count < s.limit, step, { otherwise: END })),
  );
}

/** The store with its snapshots hidden: what a load folds from the events alone. */
function eventsOnly(store: StateStore): StateStore {
  return new Proxy(store, {
    get(t, k, r) {
      if (k === "loadSnapshot") return async () => null;
      if (k === "saveSnapshot") return async () => {};
      const v = Reflect.get(t, k, r);
      return typeof v === "function" ? v.bind(t) : v;
    },
  });
}

const json = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

describe("snapshots kept by runs", () => {
  it("keeps none before the branch grew SNAPSHOT_AFTER_RUN_EVENTS events, then one that the events fold to", async () => {
    expect(SNAPSHOT_AFTER_RUN_EVENTS).toBe(4096);
    const store = new MemoryStateStore();
    const g = loop(store);
    await g.invoke({ limit: 4000 }, { threadId: "t" });
    const after1 = (await store.getBranch("t", "main"))!.lastSeq;
    expect(after1).toBeLessThan(SNAPSHOT_AFTER_RUN_EVENTS);
    expect(await store.loadSnapshot("t", "main")).toBe(null);
    await g.invoke({ limit: 4200 }, { threadId: "t" });
    const last = (await store.getBranch("t", "main"))!.lastSeq;
    expect(last).toBeGreaterThanOrEqual(SNAPSHOT_AFTER_RUN_EVENTS);
    const snap = await store.loadSnapshot("t", "main");
    expect(snap?.seq).toBe(last);
    const folded = await loadPosition(eventsOnly(store), State, "t", "main", null);
    const { definition, ...kept } = snap!.data as Record<string, unknown>;
    expect(typeof definition).toBe("string");
    expect(json(kept)).toEqual(json(folded.position));
    expect((kept as { state: S }).state.count).toBe(4200);
  });

  it("renews none before the branch is SNAPSHOT_AFTER_RUN_EVENTS long, even after a load's snapshot", async () => {
    // A branch under 4,096 events holds no snapshot of its runs (its stored bytes are its
    // events', issue 8), also when a new process's load kept one early: that one is not
    // renewed every 512 events (each a copy of the whole state) until the branch is 4,096 long.
    expect([snapshotDue(582, 70), snapshotDue(4095, 70), snapshotDue(4096, 70)]).toEqual([
      false,
      false,
      true,
    ]);
    const store = new MemoryStateStore();
    await loop(store).invoke({ limit: 70 }, { threadId: "t" });
    // A new process's run: its load folds 72 events and keeps a snapshot of them.
    const g = loop(store);
    await g.invoke({ limit: 71 }, { threadId: "t" });
    expect((await store.loadSnapshot("t", "main"))!.seq).toBe(72);
    for (const limit of [700, 1400, 2100, 2800, 3500, 4000]) {
      await g.invoke({ limit }, { threadId: "t" });
    }
    expect((await store.getBranch("t", "main"))!.lastSeq).toBe(4016);
    expect((await store.loadSnapshot("t", "main"))!.seq).toBe(72);
    await g.invoke({ limit: 4100 }, { threadId: "t" });
    expect((await store.loadSnapshot("t", "main"))!.seq).toBe(4118);
  });

  it("renews the snapshot when the tail reaches 512 events and a 16th of the branch", () => {
    expect([SNAPSHOT_AFTER_RUN_EVENTS, SNAPSHOT_RENEW_EVENTS, SNAPSHOT_TAIL_SHARE]).toEqual([
      4096, 512, 16,
    ]);
    // No snapshot yet: the first at 4,096 events.
    expect([snapshotDue(4095, 0), snapshotDue(4096, 0)]).toEqual([false, true]);
    // After one at 4,098: 512 events more (a 16th of 4,610 is 288).
    expect([snapshotDue(4609, 4098), snapshotDue(4610, 4098)]).toEqual([false, true]);
    // After one at 9,000: a 16th of the branch (9,600 / 16 = 600).
    expect([snapshotDue(9599, 9000), snapshotDue(9600, 9000)]).toEqual([false, true]);
    // After one at 100,000: 6,667 events (106,667 / 16 = 6,666.7).
    expect([snapshotDue(106_666, 100_000), snapshotDue(106_667, 100_000)]).toEqual([false, true]);
  });

  it("lets a new process read the snapshot and the tail only, with the same state", async () => {
    const path = join(dir, "t.db");
    const writer = new SqliteStateStore({ path });
    const g = loop(writer);
    await g.invoke({ limit: 4200 }, { threadId: "t" });
    await g.invoke({ limit: 4250 }, { threadId: "t" });
    const warm = await g.getState("t");
    await writer.close();
    const reader = new SqliteStateStore({ path });
    const read: StoredEvent[] = [];
    const counting = new Proxy(reader, {
      get(t, k, r) {
        const v = Reflect.get(t, k, r);
        if (k === "read") {
          return async (...a: Parameters<StateStore["read"]>) => {
            const out = await reader.read(...a);
            read.push(...out);
            return out;
          };
        }
        return typeof v === "function" ? v.bind(t) : v;
      },
    });
    const cold = await loop(counting).getState("t");
    expect(cold.state).toEqual(warm.state);
    expect(cold.lastEventId).toBe(warm.lastEventId);
    // The snapshot was kept at the end of the first run (4,200 supersteps): the second run's
    // 52 events (run_started, 50 supersteps, run_finished) are the tail.
    expect(read.map((e) => e.type)).toEqual([
      "run_started",
      ...Array.from({ length: 50 }, () => "step_committed"),
      "run_finished",
    ]);
    await reader.close();
  });

  it("keeps none for a position that holds a large binary part (a cold load keeps one that refers to it)", async () => {
    const store = new MemoryStateStore();
    const image = { type: "image", data: "A".repeat(2_000), mediaType: "image/png" };
    await loop(store, image).invoke({ limit: 4200 }, { threadId: "t" });
    expect(await store.loadSnapshot("t", "main")).toBe(null);
  });
});
