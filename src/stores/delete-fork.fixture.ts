/**
 * The cases of `deleteThread` against a fork (or a deletion) that another connection makes
 * after the delete listed the thread's branches, shared by the SQLite and PostgreSQL stores'
 * tests (each opens its store objects on one file or schema, as two processes would).
 *
 * Deterministic: the deleting store's `acquireLease` is wrapped so that, when the delete takes
 * its first lease (after its listing, before its transaction), the other connection acts.
 */
import { expect, it } from "vitest";
import { ThreadBusyError } from "../errors/index.js";
import { MAX_DELETE_ATTEMPTS } from "./internal.js";
import { ev as contractEv, onFirstLease } from "./testing/contract-helpers.js";
import type { NewEvent, StateStore } from "./types.js";

/** The event the cases append (exported for the stores' own race tests). */
export const ev: NewEvent = contractEv("state_updated", { x: 1 });

/**
 * The shared cases (threads `t1`–`t4`), inside the caller's `describe`; `open` makes a new
 * store object on the same data (the caller closes them).
 */
export function deleteForkCases(open: () => StateStore): void {
  it("refuses with ThreadBusyError when a run holds the fork's lease; the thread stays whole", async () => {
    const a = open();
    const b = open();
    await a.append("t1", "main", [ev, ev, ev], 0);
    onFirstLease(a, async () => {
      await b.createBranch("t1", "t1/main/2", "fk");
      expect(await b.acquireLease!("t1", "fk", "run-1", 60_000)).toBe(true);
    });
    const err = await a.deleteThread!("t1").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ThreadBusyError);
    expect([(err as ThreadBusyError).message, (err as ThreadBusyError).branchId]).toEqual([
      'Thread "t1" (branch "fk") is running; it cannot be deleted until the run ends (or its lease expires)',
      "fk",
    ]);
    expect((await a.listBranches!("t1")).map((x) => [x.branchId, x.lastSeq])).toEqual([
      ["main", 3],
      ["fk", 2],
    ]);
    // The run goes on: it writes to its fork, then ends; the delete then succeeds.
    expect((await b.append("t1", "fk", [ev], 2)).map((e) => e.id)).toEqual(["t1/fk/3"]);
    await b.releaseLease!("t1", "fk", "run-1");
    expect(await a.deleteThread!("t1")).toEqual(["t1"]);
    expect(await a.listBranches!("t1")).toEqual([]);
    expect(await b.listBranches!("t1")).toEqual([]);
  });

  it("deletes a fork made after its listing that no run holds (it starts over)", async () => {
    const a = open();
    const b = open();
    await a.append("t2", "main", [ev, ev], 0);
    onFirstLease(a, async () => {
      await b.createBranch("t2", "t2/main/1", "idle");
    });
    expect(await a.deleteThread!("t2")).toEqual(["t2"]);
    expect(await b.listBranches!("t2")).toEqual([]);
    expect(await b.read("t2", "main")).toEqual([]);
  });

  it(`gives up with ThreadBusyError when forks keep appearing (${MAX_DELETE_ATTEMPTS} attempts)`, async () => {
    const a = open();
    const b = open();
    await a.append("t3", "main", [ev], 0);
    const own = a.acquireLease!.bind(a);
    let n = 0;
    a.acquireLease = async (threadId, branchId, owner, ttlMs) => {
      // Before each attempt's first lease (its listing done), one more fork.
      if (owner.startsWith("delete-") && branchId === "main") {
        await b.createBranch("t3", "t3/main/1", `f${n++}`);
      }
      return own(threadId, branchId, owner, ttlMs);
    };
    const err = await a.deleteThread!("t3").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ThreadBusyError);
    expect((err as Error).message).toBe(
      'Thread "t3" got new branches while being deleted, 3 times; nothing was deleted',
    );
    expect((await a.listBranches!("t3")).map((x) => x.branchId)).toEqual([
      "main",
      "f0",
      "f1",
      "f2",
    ]);
  });

  it("returns [] when another connection deleted the thread after its listing", async () => {
    const a = open();
    const b = open();
    await a.append("t4", "main", [ev], 0);
    onFirstLease(a, async () => {
      expect(await b.deleteThread!("t4")).toEqual(["t4"]);
    });
    expect(await a.deleteThread!("t4")).toEqual([]);
    expect(await a.listBranches!("t4")).toEqual([]);
  });
}

/** One event, for a caller's own cases. */
export const oneEvent = ev;
