import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqliteMemoryStore } from "../integrations/sqlite/sqlite-memory-store.js";
import { type CliOutcome, runCaptured } from "./cli-capture.fixture.js";
import { index } from "./fixtures/memory-index.fixture.js";

const dir = mkdtempSync(join(tmpdir(), "nodestep-memory-cli-"));
const db = join(dir, "app.db");
const STORE = `sqlite:${db}`;
const INDEX = "src/cli/fixtures/memory-index.fixture.ts#index";

/** Run `nodestep ARGS` in-process (runCli, cli-capture.fixture.ts), with an empty environment. */
const nodestep = (args: string[]): Promise<CliOutcome> => runCaptured(args);

beforeAll(async () => {
  let now = 1_700_000_000_000;
  const store = new SqliteMemoryStore({ path: db, index, now: () => now++ });
  await store.put(["users", "u1"], "tea", { text: "likes green tea" });
  await store.put(["users", "u1"], "job", { text: "works as a pilot", kind: "fact" });
  await store.put(["users", "u2"], "tea", { text: "likes black tea" });
  await store.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("nodestep memory", () => {
  it("lists items under a prefix, as text and JSON, with a filter", async () => {
    expect(await nodestep(["memory", "list", "users/u1", "--store", STORE])).toEqual({
      code: 0,
      stdout:
        'users/u1  job  {"text":"works as a pilot","kind":"fact"}\nusers/u1  tea  {"text":"likes green tea"}\n',
      stderr: "",
    });
    const json = await nodestep([
      "memory",
      "list",
      "--store",
      STORE,
      "--json",
      "--filter",
      '{"kind":"fact"}',
    ]);
    expect(
      json.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l)),
    ).toEqual([
      {
        namespace: ["users", "u1"],
        key: "job",
        value: { text: "works as a pilot", kind: "fact" },
        createdAt: 1_700_000_000_001,
        updatedAt: 1_700_000_000_001,
        expiresAt: null,
      },
    ]);
    expect((await nodestep(["memory", "list", "nobody", "--store", STORE])).stdout).toBe(
      "no items\n",
    );
  });

  it("lists namespaces under a prefix, with --suffix, --max-depth and --json", async () => {
    expect(await nodestep(["memory", "namespaces", "--store", STORE])).toEqual({
      code: 0,
      stdout: "users/u1\nusers/u2\n",
      stderr: "",
    });
    expect(
      (await nodestep(["memory", "namespaces", "users", "--max-depth", "1", "--store", STORE]))
        .stdout,
    ).toBe("users\n");
    expect(
      (await nodestep(["memory", "namespaces", "--suffix", "u2", "--json", "--store", STORE]))
        .stdout,
    ).toBe('["users","u2"]\n');
    expect((await nodestep(["memory", "namespaces", "nobody", "--store", STORE])).stdout).toBe(
      "no namespaces\n",
    );
  });

  it("searches by meaning with --index, and says what is missing without it", async () => {
    const r = await nodestep([
      "memory",
      "search",
      "users",
      "-q",
      "green tea",
      "--limit",
      "2",
      "--store",
      STORE,
      "--index",
      INDEX,
    ]);
    expect(r.code).toBe(0);
    const rows = r.stdout.trim().split("\n");
    expect(rows.map((l) => l.split("  ").slice(1, 3).join(" "))).toEqual([
      "users/u1 tea",
      "users/u2 tea",
    ]);
    // cos("green tea", "likes green tea") = 2 / sqrt(2 * 3)
    expect(rows[0]).toBe('0.816  users/u1  tea  {"text":"likes green tea"}');
    const without = await nodestep(["memory", "search", "users", "-q", "tea", "--store", STORE]);
    expect(without).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "nodestep: MemoryStoreError: search: a query needs a store with semantic search: give the store { index: { embeddings, dimensions } }\n",
    });
  });

  it("exports a namespace as JSON lines, imports it into another file, and deletes it", async () => {
    const exported = await nodestep(["memory", "export", "users/u2", "--store", STORE]);
    expect(exported.stdout).toBe(
      '{"namespace":["users","u2"],"key":"tea","value":{"text":"likes black tea"},"createdAt":1700000000002,"updatedAt":1700000000002,"expiresAt":null}\n',
    );
    const file = join(dir, "u2.jsonl");
    writeFileSync(file, exported.stdout);
    const other = `sqlite:${join(dir, "other.db")}`;
    expect(
      (await nodestep(["memory", "import", file, "--store", other, "--index", INDEX])).stdout,
    ).toBe("imported 1 item(s)\n");
    const found = await nodestep([
      "memory",
      "search",
      "-q",
      "black tea",
      "--store",
      other,
      "--index",
      INDEX,
      "--json",
    ]);
    expect(JSON.parse(found.stdout.trim())).toMatchObject({
      namespace: ["users", "u2"],
      key: "tea",
    });
    expect((await nodestep(["memory", "delete", "users/u2", "--store", STORE])).stdout).toBe(
      "deleted 1 item(s)\n",
    );
    expect(
      (await nodestep(["memory", "list", "users", "--store", STORE])).stdout.split("\n").length,
    ).toBe(3);
  });
});
