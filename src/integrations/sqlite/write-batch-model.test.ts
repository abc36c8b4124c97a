/**
 * Adversarial review of SqliteStateStore's group commit, against a model: random runs of
 * calls (appends right and stale, leases, stop requests, reads, forks, deletions), made in
 * groups without awaiting in between, on a SqliteStateStore and on a MemoryStateStore (whose
 * every call runs to completion when made). Group commit must keep call order: every call's
 * outcome, and the final contents, are the same on both.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MemoryStateStore } from "../../stores/memory-state-store.js";
import type { StateStore, StoredEvent } from "../../stores/types.js";
import { SqliteStateStore } from "./index.js";

const dir = mkdtempSync(join(tmpdir(), "nodestep-sqlite-model-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A small seeded PRNG (mulberry32): the same calls on every run of the test. */
function rng(seed: number): (n: number) => number {
  let a = seed;
  return (n) => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

const THREADS = ["a", "b", "c"];
const BRANCHES = ["main", "fk"];
const OWNERS = ["o1", "o2"];

/** A call on a store: its outcome as plain data (events without createdAt). */
type Call = (s: StateStore) => Promise<unknown>;
const shown = (events: StoredEvent[]) => events.map((e) => [e.id, e.data]);

/**
 * A random call; `heads` is where the test expects each branch to be (its appends mostly
 * expect that, a few a random seq), updated as if every append succeeded.
 */
function randomCall(
  r: (n: number) => number,
  i: number,
  heads: Map<string, number>,
): [string, Call] {
  const t = THREADS[r(THREADS.length)]!;
  const b = r(4) === 0 ? BRANCHES[1]! : BRANCHES[0]!;
  const o = OWNERS[r(OWNERS.length)]!;
  const key = `${t}/${b}`;
  const after = r(4) === 0 ? r(8) : (heads.get(key) ?? 0);
  switch (r(12)) {
    case 0:
    case 1:
    case 2:
    case 3: {
      const n = 1 + r(2);
      const events = Array.from({ length: n }, (_, k) => ({
        type: "task_finished" as const,
        runId: "r",
        step: 0,
        taskId: null,
        node: null,
        data: { i, k },
      }));
      if (after === (heads.get(key) ?? 0)) heads.set(key, after + n);
      return [`append ${t}/${b} after ${after}`, (s) => s.append(t, b, events, after).then(shown)];
    }
    case 4:
      return [`acquire ${t}/${b} ${o}`, (s) => s.acquireLease(t, b, o, 60_000)];
    case 5:
      return [`release ${t}/${b} ${o}`, (s) => s.releaseLease(t, b, o)];
    case 6:
      return [`renew ${t}/${b} ${o}`, (s) => s.renewLease!(t, b, o, 60_000)];
    case 7:
      return [`requestStop ${t}/${b}`, (s) => s.requestStop!(t, b, "x")];
    case 8:
      return [`stopRequested ${t}/${b} ${o}`, (s) => s.stopRequested!(t, b, o)];
    case 9:
      return [`read ${t}/${b}`, (s) => s.read(t, b).then(shown)];
    case 10:
      heads.set(`${t}/fk`, after);
      return [
        `fork ${t} at ${after}`,
        (s) => s.createBranch(t, `${t}/main/${after}`, "fk").then((x) => [x.branchId, x.lastSeq]),
      ];
    default:
      return [
        `getBranch ${t}/${b}`,
        (s) => s.getBranch(t, b).then((x) => (x ? [x.branchId, x.lastSeq] : null)),
      ];
  }
}

const settle = (p: Promise<unknown>) =>
  p.then(
    (v) => ["ok", v],
    (e: Error) => [e.name, e.message.replace(/SQLite state store \S+ failed/, "failed")],
  );

describe("SqliteStateStore group commit against MemoryStateStore", () => {
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    it(`gives every call the outcome it has on MemoryStateStore (seed ${seed})`, async () => {
      const r = rng(seed);
      const sqlite = new SqliteStateStore({ path: join(dir, `model-${seed}.db`) });
      const memory = new MemoryStateStore();
      const heads = new Map<string, number>();
      for (let round = 0; round < 60; round++) {
        const calls = Array.from({ length: 1 + r(12) }, (_, k) =>
          randomCall(r, round * 100 + k, heads),
        );
        // A deletion now and then, among the calls.
        if (r(10) === 0) {
          const t = THREADS[r(THREADS.length)]!;
          calls.splice(r(calls.length), 0, [`delete ${t}`, (s) => s.deleteThread(t)]);
          for (const b of BRANCHES) heads.delete(`${t}/${b}`);
        }
        const onSqlite = await Promise.all(calls.map(([, c]) => settle(c(sqlite))));
        const onMemory = await Promise.all(calls.map(([, c]) => settle(c(memory))));
        const named = (out: unknown[]) => out.map((o, k) => [calls[k]![0], o]);
        expect(named(onSqlite)).toEqual(named(onMemory));
      }
      for (const t of THREADS) {
        for (const b of BRANCHES) {
          expect(await settle(sqlite.read(t, b).then(shown))).toEqual(
            await settle(memory.read(t, b).then(shown)),
          );
        }
      }
      await sqlite.close();
    });
  }
});
