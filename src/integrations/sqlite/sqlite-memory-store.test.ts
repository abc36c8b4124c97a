import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MemoryStoreError } from "../../errors/index.js";
import { HashEmbeddings } from "../../memory/hash-embeddings.js";
import { describeMemoryStoreContract } from "../../memory/testing/contract.js";
import type { MemoryStore } from "../../memory/types.js";
import { SqliteMemoryStore, SqliteStateStore } from "./index.js";

const dir = mkdtempSync(join(tmpdir(), "nodestep-sqlite-memory-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const paths = new WeakMap<MemoryStore, string>();

describeMemoryStoreContract(
  "SqliteMemoryStore",
  async (options) => {
    const path = join(dir, `m${n++}.db`);
    const store = new SqliteMemoryStore({ path, ...options });
    paths.set(store, path);
    return store;
  },
  async (store) => rmSync(paths.get(store)!, { force: true }),
  {
    reopen: async (store, options) => {
      const again = new SqliteMemoryStore({ path: paths.get(store)!, ...options });
      paths.set(again, paths.get(store)!);
      return again;
    },
  },
);

describe("SqliteMemoryStore", () => {
  it("shares one file with the state store, each in its own tables", async () => {
    const path = join(dir, "shared.db");
    const memory = new SqliteMemoryStore({ path });
    const state = new SqliteStateStore({ path });
    await memory.put(["u"], "k", { v: 1 });
    await state.append(
      "t1",
      "main",
      [{ type: "run_started", runId: "r1", step: null, taskId: null, node: null, data: null }],
      0,
    );
    await state.close();
    await memory.close();
    const again = new SqliteMemoryStore({ path, tablePrefix: "memory_" });
    const stateAgain = new SqliteStateStore({ path });
    expect((await again.get(["u"], "k"))?.value).toEqual({ v: 1 });
    expect((await stateAgain.read("t1", "main")).length).toBe(1);
    const other = new SqliteMemoryStore({ path, tablePrefix: "other_" });
    expect(await other.list([])).toEqual([]);
    await Promise.all([again.close(), stateAgain.close(), other.close()]);
  });

  it("refuses an index of other dimensions than the file's, and a bad tablePrefix", async () => {
    const path = join(dir, "dims.db");
    const a = new SqliteMemoryStore({
      path,
      index: { embeddings: new HashEmbeddings({ dimensions: 8 }), dimensions: 8 },
    });
    await a.close();
    expect(
      () =>
        new SqliteMemoryStore({
          path,
          index: { embeddings: new HashEmbeddings({ dimensions: 16 }), dimensions: 16 },
        }),
    ).toThrow(
      new MemoryStoreError(
        "The memory tables memory_* hold vectors of 8 dimensions; this store's index.dimensions is 16. Use the same embeddings, or another tablePrefix",
      ),
    );
    expect(() => new SqliteMemoryStore({ path, tablePrefix: "x-y" })).toThrow(
      'SqliteMemoryStore: tablePrefix must be letters, digits and _ (not starting with a digit), at most 41 characters, got "x-y"',
    );
  });
});
