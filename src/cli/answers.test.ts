/**
 * A bad `--answer` is a usage error (exit 2, the error's message, no retry hint) and changes
 * nothing: a prototype key (refused as the server refuses it), a key no interrupt waits on, a
 * value nested past the depth limit. An answer the node refuses when it runs (an invalid
 * approval) fails the run (exit 1); the retry it suggests, and `history`'s, gives the pending
 * interrupt its answer again, and following it works.
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

it("after an answer the approval refuses, the retry hints carry --answer for the pending interrupt", async () => {
  const SHOP = "src/cli/fixtures/shop.fixture.ts#buildStrictShopAgent";
  const STORE = `sqlite:${join(dir, "strict.db")}`;
  const run = await nodestep(["run", SHOP, "-m", "refund A-1", "-t", "s", "--store", STORE]);
  expect(run.code).toBe(3);
  const resume = (answer: string) =>
    nodestep(["resume", "s", "--graph", SHOP, "--store", STORE, "--answer", `1:0#c3=${answer}`]);
  const failed = await resume("maybe");
  expect(failed.code).toBe(1);
  expect(failed.stderr).toBe(
    `nodestep: run failed: ToolExecutionError: Tool "refund" failed on call "c3": ValueError: ApprovalMiddleware: invalid answer for tool "refund" (call "c3"): got "maybe"; answer "yes", "no", true, false, { approved: true }, { approved: true, arguments: { ... } } or { approved: false, reason: "..." }\n(the thread keeps its state from before the failed step; retry with: nodestep resume s --graph ${SHOP} --store ${STORE} --answer '1:0#c3=<answer>')\n`,
  );
  // Again: after two failed resumes the interrupt is still the one pending.
  expect((await resume("perhaps")).code).toBe(1);
  const history = await nodestep(["history", "s", "--store", STORE]);
  expect(
    history.stdout.endsWith(
      `\n\nfailed: retry from before the failed step with: nodestep resume s --graph <module>#<export> --store ${STORE} --answer '1:0#c3=<answer>'\n`,
    ),
  ).toBe(true);
  const done = await resume("yes");
  expect([done.code, done.stderr]).toEqual([0, ""]);
  expect(done.stdout).toContain("ai: Refunded 25 on A-1.\n");
});
