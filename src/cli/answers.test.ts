/**
 * A bad `--answer` is a usage error (exit 2, the error's message, no retry hint) and changes
 * nothing: a prototype key (refused as the server refuses it), a key no interrupt waits on, a
 * value nested past the depth limit.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it, vi } from "vitest";
import { SqliteStateStore } from "../integrations/sqlite/index.js";
import { JSON_ENVELOPE_DEPTH, MAX_JSON_DEPTH } from "../json/depth.js";

// A test here starts several processes one after another (the CLI, or an example and its
// workers), each 1–5 s of wall time on a loaded 2-core machine with two test workers: the
// budget is two minutes a test or hook, not vitest's 30 s (each process has its own 60 s timeout).
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const root = fileURLToPath(new URL("../..", import.meta.url));
const bin = join(root, "bin/nodestep.js");
const GRAPH = "src/cli/fixtures/refund.fixture.ts#buildRefundGraph";
const dir = mkdtempSync(join(tmpdir(), "nodestep-cli-answers-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function nodestep(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env };
  delete env.NODESTEP_STORE;
  delete env.NODESTEP_GRAPH;
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { cwd: root, env, timeout: 60_000 }, (e, o, r) =>
      resolve({ code: e ? Number((e as { code?: unknown }).code ?? 1) : 0, stdout: o, stderr: r }),
    );
  });
}

async function eventTypes(db: string): Promise<string[]> {
  const store = new SqliteStateStore({ path: db });
  try {
    return (await store.read("t", "main")).map((e) => e.type);
  } finally {
    await store.close();
  }
}

it("refuses bad --answer values with exit 2 and leaves the thread as it was", async () => {
  const db = join(dir, "a.db");
  const STORE = `sqlite:${db}`;
  const paused = await nodestep([
    "run",
    GRAPH,
    "-m",
    "Refund 250 please",
    "-t",
    "t",
    "--store",
    STORE,
  ]);
  expect(paused.code).toBe(3);
  const before = await eventTypes(db);
  const resume = (answer: string) =>
    nodestep(["resume", "t", "--graph", GRAPH, "--store", STORE, "--answer", answer]);
  const header = `thread t · branch main · graph refund · store ${STORE}\n`;
  const limit = MAX_JSON_DEPTH + JSON_ENVELOPE_DEPTH;
  const deep = `${"[".repeat(limit + 1)}${"]".repeat(limit + 1)}`;
  const results = await Promise.all([
    resume("__proto__=1"),
    resume("constructor=true"),
    resume('approve={"a":[{"prototype":1}]}'),
    resume("nokey=1"),
    resume(`approve=${deep}`),
  ]);
  expect(results.map((r) => r.code)).toEqual([2, 2, 2, 2, 2]);
  expect(results.slice(0, 3).map((r) => [r.stdout, r.stderr])).toEqual([
    ["", "nodestep: __proto__: the keys __proto__, constructor and prototype are not accepted\n"],
    ["", "nodestep: constructor: the keys __proto__, constructor and prototype are not accepted\n"],
    [
      "",
      "nodestep: approve.a[0].prototype: the keys __proto__, constructor and prototype are not accepted\n",
    ],
  ]);
  expect([results[3]!.stdout, results[3]!.stderr]).toEqual([
    header,
    'nodestep: Thread "t" has no pending interrupt with key "nokey"; pending: approve\n',
  ]);
  expect(results[4]!.stdout).toBe(header);
  expect(results[4]!.stderr).toBe(
    `nodestep: Cannot store the resume answers: resume.approve${"[0]".repeat(limit - 1)} is not JSON (the value is nested deeper than ${limit} levels (the limit))\n`,
  );
  expect(await eventTypes(db)).toEqual(before);
});
