/**
 * The `StateStore` contract (contract.ts), `listThreads` (its order, filters and pages) and `sizeBytes`.
 */
import { beforeEach, describe, expect, it, vi } from "vitest";
import { StateStoreError } from "../../errors/index.js";
import type { StateStore } from "../types.js";
import { type ContractContext, ev, rejects, sleep } from "./contract-helpers.js";

/** Register the contract tests of `listThreads` (its order, filters and pages) and `sizeBytes`. */
export function describeListContract(ctx: ContractContext): void {
  let store: StateStore;
  beforeEach(() => {
    store = ctx.store();
  });

  describe("listThreads and sizeBytes", () => {
    it("lists threads most recently updated first, with their branches", async () => {
      expect(await store.listThreads()).toEqual([]);
      const [a1] = await store.append("a", "main", [ev("run_started", 1)], 0);
      await sleep(15);
      const [b1] = await store.append("b", "main", [ev("run_started", 1)], 0);
      await sleep(15);
      await store.createBranch("a", a1!.id, "alt");
      expect((await store.listThreads()).map((t) => [t.threadId, t.branches, t.updatedAt])).toEqual(
        [
          ["b", ["main"], b1!.createdAt],
          ["a", ["main", "alt"], a1!.createdAt],
        ],
      );
      const [a2] = await store.append("a", "alt", [ev("task_finished", 2)], 1);
      expect(await store.listThreads()).toEqual([
        { threadId: "a", branches: ["main", "alt"], updatedAt: a2!.createdAt },
        { threadId: "b", branches: ["main"], updatedAt: b1!.createdAt },
      ]);
    });

    it("grows sizeBytes by about the JSON size of what is appended", async () => {
      expect(await store.sizeBytes()).toBe(0);
      const batch = [
        ev("model_response", { content: "x".repeat(2000), toolCalls: [{ id: "c1", args: {} }] }),
        ev("tool_result", { result: "ünïcödé ".repeat(100) }),
        ev("task_finished", { update: { n: 1 } }),
      ];
      const json = batch.reduce((n, e) => n + Buffer.byteLength(JSON.stringify(e.data)), 0);
      await store.append("t1", "main", batch, 0);
      const size1 = await store.sizeBytes();
      expect(size1).toBeGreaterThanOrEqual(json);
      expect(size1).toBeLessThanOrEqual(3 * json + 256 * batch.length);
      await store.saveSnapshot("t1", "main", { seq: 3, data: { big: "y".repeat(1000) } });
      const size2 = await store.sizeBytes();
      expect(size2 - size1).toBeGreaterThanOrEqual(1000);
      expect(size2 - size1).toBeLessThanOrEqual(3 * 1000 + 256);
      // Replacing the snapshot replaces its bytes.
      await store.saveSnapshot("t1", "main", { seq: 3, data: { big: "y".repeat(1000) } });
      expect(await store.sizeBytes()).toBe(size2);
    });

    it("grows linearly over 1,000 appends to one branch", async () => {
      const one = (i: number) => [ev("task_finished", { i: i % 10, text: "z".repeat(40) })];
      const json = Buffer.byteLength(JSON.stringify(one(0)[0]!.data));
      const sizes = new Map<number, number>();
      for (let i = 0; i < 1000; i++) {
        await store.append("t1", "main", one(i), i);
        if (i + 1 === 10 || i + 1 === 100 || i + 1 === 1000) {
          sizes.set(i + 1, await store.sizeBytes());
        }
      }
      const early = (sizes.get(100)! - sizes.get(10)!) / 90;
      const late = (sizes.get(1000)! - sizes.get(100)!) / 900;
      expect(early).toBeGreaterThanOrEqual(json);
      expect(early).toBeLessThanOrEqual(3 * json + 256);
      expect(Math.abs(late - early) / early).toBeLessThan(0.05);
      expect((await store.getBranch("t1", "main"))?.lastSeq).toBe(1000);
      expect((await store.read("t1", "main", { afterSeq: 998 })).map((e) => e.seq)).toEqual([
        999, 1000,
      ]);
    });
  });

  describe("listThreads pages", () => {
    it("returns the page limit and offset ask for, in the listing's order", async () => {
      for (const id of ["a", "b", "c", "d", "e"]) {
        await store.append(id, "main", [ev("run_started", id)], 0);
      }
      const all = await store.listThreads();
      expect(all.map((t) => t.threadId).sort()).toEqual(["a", "b", "c", "d", "e"]);
      expect(await store.listThreads({ limit: 2 })).toEqual(all.slice(0, 2));
      expect(await store.listThreads({ limit: 2, offset: 2 })).toEqual(all.slice(2, 4));
      expect(await store.listThreads({ offset: 4 })).toEqual(all.slice(4));
      expect(await store.listThreads({ limit: 10, offset: 5 })).toEqual([]);
      expect(await store.listThreads({})).toEqual(all);
    });

    it("orders threads updated at the same time by their ids' code points, paged or not", async () => {
      // "\uFF01" comes before "\u{1F600}" by code point (and in UTF-8 bytes, as SQLite and
      // PostgreSQL's "C" collation sort), after it by UTF-16 code unit (0xFF01 > 0xD83D).
      const ids = ["\u{1F600}", "z", "\uFF01", "a\u00E9", "ab"];
      const now = vi.spyOn(Date, "now").mockReturnValue(1_700_000_000_000);
      try {
        for (const id of ids) await store.append(id, "main", [ev("run_started", id)], 0);
      } finally {
        now.mockRestore();
      }
      const order = ["ab", "a\u00E9", "z", "\uFF01", "\u{1F600}"];
      expect((await store.listThreads()).map((t) => t.threadId)).toEqual(order);
      const pages: string[] = [];
      for (let offset = 0; offset < 5; offset++) {
        for (const t of await store.listThreads({ limit: 1, offset })) pages.push(t.threadId);
      }
      expect(pages).toEqual(order);
      expect((await store.listThreads({ limit: 2, offset: 2 })).map((t) => t.threadId)).toEqual([
        "z",
        "\uFF01",
      ]);
    });

    it("refuses a limit below 1 or an offset below 0", async () => {
      const e1 = await rejects(store.listThreads({ limit: 0 }), StateStoreError);
      expect(e1.message).toBe("listThreads: limit must be an integer ≥ 1, got 0");
      const e2 = await rejects(store.listThreads({ offset: -1 }), StateStoreError);
      expect(e2.message).toBe("listThreads: offset must be an integer ≥ 0, got -1");
      await rejects(store.listThreads({ limit: 1.5 }), StateStoreError);
    });
  });
}
