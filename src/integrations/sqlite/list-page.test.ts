/**
 * A page of `SqliteStateStore.listThreads` is one state of the file: its threads, their order,
 * times and branch ids, even when another connection commits while the page is being read.
 * The commit is made to happen between the listing's statements deterministically: better-sqlite3
 * is synchronous, so the test wraps its statements' read methods and commits another
 * connection's writes just before the listing's second statement runs.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import type { ListThreadsOptions, NewEvent, ThreadInfo } from "../../stores/types.js";
import { SqliteStateStore } from "./index.js";

const dir = mkdtempSync(join(tmpdir(), "nodestep-sqlite-list-page-"));
let n = 0;
const fresh = () => join(dir, `store-${++n}.db`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

function ev(data: NewEvent["data"]): NewEvent {
  return { type: "task_finished", runId: "r1", step: 0, taskId: "k", node: "a", data };
}

type ReadMethod = "all" | "get" | "iterate";
const statementProto = (() => {
  const db = new Database(":memory:");
  const proto = Object.getPrototypeOf(db.prepare("SELECT 1")) as Record<
    ReadMethod,
    (...args: unknown[]) => unknown
  >;
  db.close();
  return proto;
})();

/**
 * Call `list()`, running `write` (another connection's commits) just before the second read
 * statement the listing runs (or after it, when it runs one statement only); how many read
 * statements the listing ran before `write`, or `null` when it ran one statement only.
 */
async function listWithCommitBetween(
  list: () => Promise<ThreadInfo[]>,
  write: () => void,
): Promise<{ page: ThreadInfo[]; before: number | null }> {
  let armed = false;
  let reads = 0;
  let before: number | null = null;
  for (const m of ["all", "get", "iterate"] as const) {
    const original = statementProto[m];
    vi.spyOn(statementProto, m).mockImplementation(function (this: unknown, ...args: unknown[]) {
      if (armed) {
        if (reads === 1 && before === null) {
          armed = false; // (the writer's own statements run unwatched)
          write();
          before = reads;
          armed = true;
        }
        reads++;
      }
      return original.apply(this, args);
    });
  }
  armed = true;
  const pending = list(); // (the store reads synchronously, within this call)
  armed = false;
  if (before === null) write();
  return { page: await pending, before };
}

describe("SqliteStateStore.listThreads reads a page in one state of the file", () => {
  it.each<[string, ListThreadsOptions]>([
    ["the first page", { limit: 2 }],
    ["a page after an offset", { limit: 2, offset: 1 }],
  ])(
    "%s: another connection's fork and deletion committed meanwhile are not in it",
    async (_, options) => {
      const path = fresh();
      const store = new SqliteStateStore({ path });
      const now = vi.spyOn(Date, "now");
      const bEvents: string[] = [];
      for (const [threadId, at] of [
        ["a", 1_000],
        ["b", 2_000],
        ["c", 3_000],
        ["d", 4_000],
      ] as const) {
        now.mockReturnValue(at);
        const [e] = await store.append(threadId, "main", [ev(threadId)], 0);
        if (threadId === "b") bEvents.push(e!.id);
      }
      now.mockRestore();
      const other = new SqliteStateStore({ path });
      const raw = new Database(path);
      const offset = options.offset ?? 0;
      const ids = ["d", "c", "b", "a"].slice(offset, offset + 2);
      let forked: Promise<unknown> = Promise.resolve();
      const { page, before } = await listWithCommitBetween(
        () => store.listThreads(options),
        () => {
          // Another connection forks "b" (createBranch commits when called) and deletes the
          // page's first thread, as another process's deleteThread does in its transaction.
          forked = other.createBranch("b", bEvents[0]!, "fork");
          raw.transaction(() => {
            raw.prepare("DELETE FROM events WHERE thread_id = ?").run(ids[0]);
            raw.prepare("DELETE FROM branches WHERE thread_id = ?").run(ids[0]);
          })();
        },
      );
      await forked;
      const at = { a: 1_000, b: 2_000, c: 3_000, d: 4_000 } as Record<string, number>;
      // The page as the file was when it began: no thread without branches, no fork made after.
      expect(before).toBe(1);
      expect(page).toEqual(
        ids.map((id) => ({ threadId: id, branches: ["main"], updatedAt: at[id] })),
      );
      // The next call sees both commits.
      const after = ["d", "c", "b", "a"].filter((id) => id !== ids[0]);
      expect(await store.listThreads(options)).toEqual(
        after.slice(offset, offset + 2).map((id) => ({
          threadId: id,
          branches: id === "b" ? ["main", "fork"] : ["main"],
          updatedAt: at[id],
        })),
      );
      raw.close();
      await other.close();
      await store.close();
    },
  );

  it("commits the store's own waiting writes first, so a page has the append not yet awaited", async () => {
    const path = fresh();
    const store = new SqliteStateStore({ path });
    const now = vi.spyOn(Date, "now").mockReturnValue(1_000);
    await store.append("old", "main", [ev(1)], 0);
    now.mockReturnValue(2_000);
    const appended = store.append("new", "main", [ev(2)], 0); // waiting for the next tick
    expect(await store.listThreads({ limit: 1 })).toEqual([
      { threadId: "new", branches: ["main"], updatedAt: 2_000 },
    ]);
    expect(await store.listThreads({ limit: 1, offset: 1 })).toEqual([
      { threadId: "old", branches: ["main"], updatedAt: 1_000 },
    ]);
    expect((await appended).map((e) => e.seq)).toEqual([1]);
    await store.close();
  });
});
