/**
 * A bad `--answer` is a usage error (exit 2, the error's message, no retry hint) and changes
 * nothing: a prototype key (refused as the server refuses it), a key no interrupt waits on, a
 * value nested past the depth limit.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { SqliteStateStore } from "../integrations/sqlite/index.js";
import { JSON_ENVELOPE_DEPTH, MAX_JSON_DEPTH } from "../json/depth.js";
import { type CliOutcome, runCaptured } from "./cli-capture.fixture.js";

const GRAPH = "src/cli/fixtures/refund.fixture.ts#buildRefundGraph";
const dir = mkdtempSync(join(tmpdir(), "nodestep-cli-answers-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Run `nodestep ARGS` in-process (runCli, cli-capture.fixture.ts), with an empty environment. */
const nodestep = (args: string[]): Promise<CliOutcome> => runCaptured(args);

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
  // One after another: two resumes at once would race for the thread's lease (the second then
  // exits 1, "already running"), which is not what this test is about.
  const results: CliOutcome[] = [];
  for (const answer of [
    "__proto__=1",
    "constructor=true",
    'approve={"a":[{"prototype":1}]}',
    "nokey=1",
    `approve=${deep}`,
  ])
    results.push(await resume(answer));
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
