/** Issue 13, item 9: `nodestep threads delete` and `nodestep threads --limit/--offset`. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { SqliteStateStore } from "../integrations/sqlite/index.js";
import { type CliOutcome, runCaptured } from "./cli-capture.fixture.js";

const dir = mkdtempSync(join(tmpdir(), "nodestep-cli-del-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Run `nodestep ARGS` in-process (runCli, cli-capture.fixture.ts), with an empty environment. */
const nodestep = (args: string[]): Promise<CliOutcome> => runCaptured(args);

it("deletes a thread (and its children with --children), and pages the listing", async () => {
  const db = join(dir, "s.db");
  const store = new SqliteStateStore({ path: db });
  for (const id of ["a", "a:sub", "b", "c"]) {
    await store.append(
      id,
      "main",
      [{ type: "run_started", runId: "r", step: 0, taskId: null, node: null, data: null }],
      0,
    );
  }
  const all = (await store.listThreads()).map((t) => t.threadId);
  await store.close();
  const STORE = `sqlite:${db}`;

  const page = await nodestep([
    "threads",
    "--store",
    STORE,
    "--json",
    "--limit",
    "2",
    "--offset",
    "1",
  ]);
  expect(page.stderr).toBe("");
  expect((JSON.parse(page.stdout) as { threadId: string }[]).map((t) => t.threadId)).toEqual(
    all.slice(1, 3),
  );
  const bad = await nodestep(["threads", "--store", STORE, "--limit", "0"]);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('--limit must be an integer ≥ 1, got "0"');

  const del = await nodestep(["threads", "delete", "a", "--children", "--store", STORE]);
  expect([del.code, del.stdout, del.stderr]).toEqual([0, "deleted a, a:sub\n", ""]);
  const json = await nodestep(["threads", "delete", "b", "--store", STORE, "--json"]);
  expect([json.code, json.stdout]).toEqual([0, '{"deleted":["b"]}\n']);
  // None deleted: exit 1 with --json too (it was 0), the JSON still printed.
  const noneJson = await nodestep(["threads", "delete", "nope", "--store", STORE, "--json"]);
  expect([noneJson.code, noneJson.stdout, noneJson.stderr]).toEqual([
    1,
    '{"deleted":[]}\n',
    `nodestep: no thread "nope" in ${STORE}\n`,
  ]);
  const none = await nodestep(["threads", "delete", "b", "--store", STORE]);
  expect(none.code).toBe(1);
  expect(none.stderr).toContain('no thread "b" in');
  const left = await nodestep(["threads", "--store", STORE, "--json"]);
  expect((JSON.parse(left.stdout) as { threadId: string }[]).map((t) => t.threadId)).toEqual(["c"]);
});
