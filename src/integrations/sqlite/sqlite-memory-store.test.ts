import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { MemoryStoreError } from "../../errors/index.js";
import { HashEmbeddings } from "../../memory/hash-embeddings.js";
import { textHash, vectorToBlob } from "../../memory/internal.js";
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
  it("uses an open database it is given, leaves it open, and refuses one that is not", async () => {
    const db = new Database(join(dir, "given.db"));
    const memory = new SqliteMemoryStore({ database: db });
    await memory.put(["u"], "k", { v: 2 });
    expect((await memory.get(["u"], "k"))?.value).toEqual({ v: 2 });
    await memory.close();
    expect(db.open).toBe(true);
    db.close();
    const refused = "SqliteMemoryStore: { database } must be an open better-sqlite3 Database";
    expect(() => new SqliteMemoryStore({ database: db })).toThrow(new MemoryStoreError(refused));
    const notOne = { prepare: 1, exec: () => 0, open: true } as unknown as Database.Database;
    expect(() => new SqliteMemoryStore({ database: notOne })).toThrow(
      new MemoryStoreError(refused),
    );
  });

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

  it("keeps vectors in their own table, in step with the items (put, delete, namespaces, TTLs), and counts them for maxSearchItems", async () => {
    const path = join(dir, "vectors.db");
    let now = 1_000;
    const embeddings = new HashEmbeddings({ dimensions: 8 });
    const store = new SqliteMemoryStore({
      path,
      index: { embeddings, dimensions: 8, fields: ["text"] },
      maxSearchItems: 3,
      now: () => now,
    });
    const raw = new Database(path, { readonly: true });
    const vectors = () =>
      (
        raw
          .prepare(
            "SELECT ns, key, expires_at, length(embedding) AS bytes FROM memory_vectors ORDER BY ns, key",
          )
          .all() as {
          ns: string;
          key: string;
          expires_at: number | null;
          bytes: number;
        }[]
      ).map((r) => `${r.ns.replaceAll("\u001f", "/")}${r.key}:${r.expires_at}:${r.bytes}`);
    await store.put(["a"], "1", { text: "one" });
    await store.put(["a"], "2", { text: "two" }, { ttlMs: 10 });
    await store.put(["a", "b"], "3", { text: "three" });
    await store.put(["a"], "4", { other: "no text" });
    expect(vectors()).toEqual(["a/1:null:32", "a/2:1010:32", "a/b/3:null:32"]);
    await store.put(["a"], "1", { text: "one" }, { index: false });
    expect(vectors()).toEqual(["a/2:1010:32", "a/b/3:null:32"]);
    await store.put(["a"], "1", { text: "one" });
    await store.put(["a"], "5", { text: "five" });
    const error = await store.search(["a"], { query: "one" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MemoryStoreError);
    expect((error as Error).message).toBe(
      'search: more than 3 indexed items under namespace prefix ["a"] (maxSearchItems); search a narrower prefix, raise maxSearchItems, or use PostgresMemoryStore (pgvector index)',
    );
    now = 1_010; // "2" expired: three live vectors left, within the limit
    expect((await store.search(["a"], { query: "one", limit: 1 })).map((i) => i.key)).toEqual([
      "1",
    ]);
    expect(await store.purgeExpired()).toBe(1);
    expect(vectors()).toEqual(["a/1:null:32", "a/5:null:32", "a/b/3:null:32"]);
    expect(await store.delete(["a"], "5")).toBe(true);
    expect(await store.deleteNamespace(["a", "b"])).toBe(1);
    expect(vectors()).toEqual(["a/1:null:32"]);
    raw.close();
    await store.close();
  });

  it("moves the vectors of a schema version 1 file into their own table when it opens", async () => {
    const path = join(dir, "v1.db");
    const embeddings = new HashEmbeddings({ dimensions: 8 });
    const v1 = new Database(path);
    v1.exec(`
CREATE TABLE memory_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE memory_items (
  ns TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL, expires_at INTEGER, text_hash TEXT, embedding BLOB,
  PRIMARY KEY (ns, key)
) WITHOUT ROWID;
CREATE INDEX memory_items_expires ON memory_items (expires_at) WHERE expires_at IS NOT NULL;
INSERT INTO memory_meta VALUES ('format', 'nodestep-memory-store'), ('schema_version', '1'), ('dimensions', '8');`);
    const vector = (text: string) => {
      const v = embeddings.vector(text);
      const norm = Math.hypot(...v);
      return vectorToBlob(Float32Array.from(v.map((x) => x / norm)));
    };
    const insert = v1.prepare("INSERT INTO memory_items VALUES (?, ?, ?, 5, 6, NULL, ?, ?)");
    insert.run(
      "u\u001f",
      "tea",
      '{"text":"green tea"}',
      textHash("green tea"),
      vector("green tea"),
    );
    insert.run("u\u001f", "job", '{"text":"a pilot"}', textHash("a pilot"), vector("a pilot"));
    insert.run("u\u001f", "plain", '{"v":1}', null, null);
    v1.close();
    const store = new SqliteMemoryStore({
      path,
      index: { embeddings, dimensions: 8, fields: ["text"] },
    });
    const found = await store.search(["u"], { query: "green tea", limit: 1 });
    expect(found.map((i) => [i.key, i.createdAt, i.updatedAt])).toEqual([["tea", 5, 6]]);
    expect(found[0]!.score).toBeCloseTo(1, 5);
    await store.put(["u"], "job", { text: "a pilot", more: true });
    expect(embeddings.calls).toEqual([["green tea"]]); // the query only: job's vector was kept
    const raw = new Database(path, { readonly: true });
    expect(
      raw.prepare("SELECT value FROM memory_meta WHERE key = 'schema_version'").pluck().get(),
    ).toBe("2");
    expect(
      (
        raw.prepare("SELECT name FROM pragma_table_info('memory_items')").pluck().all() as string[]
      ).includes("embedding"),
    ).toBe(false);
    expect(raw.prepare("SELECT key FROM memory_vectors ORDER BY key").pluck().all()).toEqual([
      "job",
      "tea",
    ]);
    raw.close();
    expect((await store.list(["u"])).map((i) => i.key)).toEqual(["job", "plain", "tea"]);
    await store.close();
  });
});
