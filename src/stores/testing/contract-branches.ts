/**
 * The `StateStore` contract (contract.ts), reads (`read` ranges and filters, `getEvent`) and branches (forks, their ancestry).
 */
import { beforeEach, describe, expect, it } from "vitest";
import {
  ConcurrentWriteError,
  StateStoreError,
  UnknownBranchError,
  UnknownEventError,
} from "../../errors/index.js";
import type { StateStore } from "../types.js";
import { type ContractContext, ev, rejects } from "./contract-helpers.js";

/** Register the contract tests of reads (`read` ranges and filters, `getEvent`) and branches (forks, their ancestry). */
export function describeBranchesContract(ctx: ContractContext): void {
  let store: StateStore;
  beforeEach(() => {
    store = ctx.store();
  });

  describe("read and branches", () => {
    async function fiveOnMain(): Promise<void> {
      await store.append(
        "t1",
        "main",
        [1, 2, 3, 4, 5].map((n) => ev("task_finished", { n })),
        0,
      );
    }

    it("reads a fork as the parent's events up to the fork point, then its own", async () => {
      await fiveOnMain();
      const fork = await store.createBranch("t1", "t1/main/3", "alt");
      expect(fork).toEqual({
        threadId: "t1",
        branchId: "alt",
        parent: { branchId: "main", seq: 3 },
        lastSeq: 3,
      });
      expect(await store.getBranch("t1", "alt")).toEqual(fork);
      await rejects(store.append("t1", "alt", [ev("task_finished", "x")], 0), ConcurrentWriteError);
      const own = await store.append(
        "t1",
        "alt",
        [ev("task_finished", { alt: 4 }), ev("task_finished", { alt: 5 })],
        3,
      );
      expect(own.map((e) => [e.id, e.branchId, e.seq])).toEqual([
        ["t1/alt/4", "alt", 4],
        ["t1/alt/5", "alt", 5],
      ]);
      expect((await store.getBranch("t1", "alt"))?.lastSeq).toBe(5);
      const ids = async (b: string, o?: { afterSeq?: number; uptoSeq?: number }) =>
        (await store.read("t1", b, o)).map((e) => e.id);
      expect(await ids("alt")).toEqual([
        "t1/main/1",
        "t1/main/2",
        "t1/main/3",
        "t1/alt/4",
        "t1/alt/5",
      ]);
      expect(await ids("main")).toEqual([1, 2, 3, 4, 5].map((n) => `t1/main/${n}`));
      expect(await ids("alt", { afterSeq: 2 })).toEqual(["t1/main/3", "t1/alt/4", "t1/alt/5"]);
      expect(await ids("alt", { uptoSeq: 4 })).toEqual([
        "t1/main/1",
        "t1/main/2",
        "t1/main/3",
        "t1/alt/4",
      ]);
      expect(await ids("alt", { afterSeq: 3, uptoSeq: 4 })).toEqual(["t1/alt/4"]);
      expect(await ids("alt", { afterSeq: 1, uptoSeq: 2 })).toEqual(["t1/main/2"]);
      expect(await ids("alt", { afterSeq: 5 })).toEqual([]);
      expect(await ids("alt", { uptoSeq: 0 })).toEqual([]);
      expect(await ids("alt", { afterSeq: 4, uptoSeq: 2 })).toEqual([]);
      expect(await ids("main", { afterSeq: 3 })).toEqual(["t1/main/4", "t1/main/5"]);
      expect(await ids("main", { uptoSeq: 99 })).toHaveLength(5);
      // The parent goes on independently.
      await store.append("t1", "main", [ev("task_finished", { n: 6 })], 5);
      expect(await ids("alt")).toEqual([
        "t1/main/1",
        "t1/main/2",
        "t1/main/3",
        "t1/alt/4",
        "t1/alt/5",
      ]);
    });

    it("refuses read options with an unknown key, or not an object, with a TypeError", async () => {
      await fiveOnMain();
      // `{ after: 2 }` read all five events: a typo must not widen a read.
      const read = (o: unknown) =>
        Promise.resolve().then(() => store.read("t1", "main", o as { afterSeq?: number }));
      const e1 = await rejects(read({ after: 2 }), TypeError);
      expect(e1.message).toBe(
        'read: unknown option "after"; the options are "afterSeq", "uptoSeq"',
      );
      const e2 = await rejects(read({ afterSeq: 1, upto: 3 }), TypeError);
      expect(e2.message).toBe('read: unknown option "upto"; the options are "afterSeq", "uptoSeq"');
      const e3 = await rejects(read(null), TypeError);
      expect(e3.message).toBe(
        'read: options must be an object with "afterSeq" and/or "uptoSeq", got null',
      );
      const e4 = await rejects(read(2), TypeError);
      expect(e4.message).toBe(
        'read: options must be an object with "afterSeq" and/or "uptoSeq", got 2',
      );
      // Known keys, undefined values and no options still read.
      const seqs = async (o: unknown) => (await read(o)).map((e) => e.seq);
      expect(await seqs({ afterSeq: 3 })).toEqual([4, 5]);
      expect(await seqs({ afterSeq: undefined, uptoSeq: 2 })).toEqual([1, 2]);
      expect(await seqs({})).toEqual([1, 2, 3, 4, 5]);
      expect(await seqs(undefined)).toEqual([1, 2, 3, 4, 5]);
    });

    it("forks a fork, and forks from an event of any branch", async () => {
      await fiveOnMain();
      await store.createBranch("t1", "t1/main/2", "a");
      await store.append("t1", "a", [ev("task_finished", "a3"), ev("task_finished", "a4")], 2);
      const b = await store.createBranch("t1", "t1/a/3", "b");
      expect(b.parent).toEqual({ branchId: "a", seq: 3 });
      expect(b.lastSeq).toBe(3);
      await store.append("t1", "b", [ev("task_finished", "b4")], 3);
      expect((await store.read("t1", "b")).map((e) => e.id)).toEqual([
        "t1/main/1",
        "t1/main/2",
        "t1/a/3",
        "t1/b/4",
      ]);
      expect((await store.read("t1", "b", { afterSeq: 1, uptoSeq: 3 })).map((e) => e.id)).toEqual([
        "t1/main/2",
        "t1/a/3",
      ]);
      // A fork at a fork's very first inherited event is a fork of the parent's event.
      const c = await store.createBranch("t1", "t1/main/1", "c");
      expect(c.parent).toEqual({ branchId: "main", seq: 1 });
      expect((await store.read("t1", "c")).map((e) => e.id)).toEqual(["t1/main/1"]);
      // A fork of the last event of a branch, then written to.
      const d = await store.createBranch("t1", "t1/b/4");
      expect(d.lastSeq).toBe(4);
      await store.append("t1", d.branchId, [ev("run_finished", null)], 4);
      expect((await store.read("t1", d.branchId)).map((e) => e.id)).toEqual([
        "t1/main/1",
        "t1/main/2",
        "t1/a/3",
        "t1/b/4",
        `t1/${d.branchId}/5`,
      ]);
    });

    it("gives [] for an unknown thread on main and UnknownBranchError for another unknown branch", async () => {
      expect(await store.read("nobody", "main")).toEqual([]);
      const err = await rejects(store.read("nobody", "side"), UnknownBranchError);
      expect([err.threadId, err.branchId]).toEqual(["nobody", "side"]);
      await fiveOnMain();
      await rejects(store.read("t1", "side"), UnknownBranchError);
      expect(await store.getBranch("t1", "side")).toBeNull();
      expect(await store.getBranch("nobody", "main")).toBeNull();
    });

    it("finds one event by id, only on the branch that wrote it", async () => {
      await fiveOnMain();
      await store.createBranch("t1", "t1/main/3", "alt");
      await store.append("t1", "alt", [ev("tool_result", "own")], 3);
      const all = await store.read("t1", "alt");
      expect(await store.getEvent("t1/main/2")).toEqual(all[1]);
      expect(await store.getEvent("t1/alt/4")).toEqual(all[3]);
      expect(await store.getEvent("t1/alt/2")).toBeNull();
      expect(await store.getEvent("t1/alt/5")).toBeNull();
      expect(await store.getEvent("t1/main/0")).toBeNull();
      expect(await store.getEvent("t1/main/6")).toBeNull();
      expect(await store.getEvent("t2/main/1")).toBeNull();
      expect(await store.getEvent("garbage")).toBeNull();
      expect(await store.getEvent("t1/main/x")).toBeNull();
    });

    it("accepts thread ids that contain slashes", async () => {
      const [e] = await store.append("org/42/chat", "main", [ev("run_started", "x")], 0);
      expect(e!.id).toBe("org/42/chat/main/1");
      expect(await store.getEvent("org/42/chat/main/1")).toEqual(e);
      const fork = await store.createBranch("org/42/chat", e!.id, "f");
      expect(fork.parent).toEqual({ branchId: "main", seq: 1 });
    });

    it("refuses unknown events, taken ids and invalid ids when creating a branch", async () => {
      await fiveOnMain();
      await store.append("t2", "main", [ev("run_started", null)], 0);
      for (const id of ["t1/main/6", "t1/main/0", "t1/nope/1", "t2/main/1", "garbage", ""]) {
        const err = await rejects(store.createBranch("t1", id), UnknownEventError);
        expect(err.eventId).toBe(id);
        expect(err.threadId).toBe("t1");
      }
      await rejects(store.createBranch("nobody", "nobody/main/1"), UnknownEventError);
      await store.createBranch("t1", "t1/main/3", "alt");
      await store.append("t1", "alt", [ev("task_finished", 1)], 3);
      // An event the fork inherits was not written on it.
      await rejects(store.createBranch("t1", "t1/alt/2"), UnknownEventError);
      for (const taken of ["alt", "main"]) {
        const err = await rejects(store.createBranch("t1", "t1/main/1", taken), StateStoreError);
        expect(err).not.toBeInstanceOf(UnknownEventError);
        expect(err.branchId).toBe(taken);
      }
      await rejects(store.createBranch("t1", "t1/main/1", "a/b"), StateStoreError);
      await rejects(store.createBranch("t1", "t1/main/1", ""), StateStoreError);
      expect((await store.getBranch("t1", "alt"))?.parent).toEqual({ branchId: "main", seq: 3 });
      expect((await store.listThreads()).find((t) => t.threadId === "t1")?.branches).toEqual([
        "main",
        "alt",
      ]);
    });

    it("keeps a branch id as given: refuses one with a NUL character or a lone surrogate", async () => {
      await store.append("t1", "main", [ev("run_started", 1)], 0);
      for (const bad of ["b\uD800", "b\uDE00x", "b\u0000c"]) {
        const err = await rejects(store.createBranch("t1", "t1/main/1", bad), StateStoreError);
        expect(err.message).toBe(
          `A branch id must be a non-empty string without "/", NUL characters or lone surrogates, got ${JSON.stringify(bad)}`,
        );
      }
      await store.createBranch("t1", "t1/main/1", "b\u{1F600}");
      const [e] = await store.append("t1", "b\u{1F600}", [ev("task_finished", 2)], 1);
      expect(e!.id).toBe("t1/b\u{1F600}/2");
      expect((await store.listBranches("t1")).map((b) => b.branchId)).toEqual([
        "main",
        "b\u{1F600}",
      ]);
      expect((await store.read("t1", "b\u{1F600}")).map((x) => x.id)).toEqual([
        "t1/main/1",
        "t1/b\u{1F600}/2",
      ]);
    });

    it("makes unique default branch ids", async () => {
      await fiveOnMain();
      const ids = new Set<string>();
      for (let i = 0; i < 20; i++) {
        const b = await store.createBranch("t1", "t1/main/5");
        expect(b.branchId).toMatch(/^b-[0-9a-f]{12}$/);
        ids.add(b.branchId);
      }
      expect(ids.size).toBe(20);
    });
  });
}
