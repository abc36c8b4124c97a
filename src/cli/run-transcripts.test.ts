/**
 * Exact transcripts of `nodestep run`, `resume` and `history` on the shop agent (a scripted
 * model that streams, calls tools, reports usage and asks before a refund), run in-process
 * through `runCli` with output that is not a terminal, on an SQLite file chosen by
 * `NODESTEP_STORE` (as the default store would be). docs/cli.md shows the same transcripts:
 * each one is compared with the doc's `text` block of the same title.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { runCaptured } from "./cli-capture.fixture.js";
import { CLEAR_LINE } from "./progress.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "nodestep-cli-transcripts-"));
const db = join(dir, "nodestep.db");
const prices = join(dir, "prices.json");
writeFileSync(
  prices,
  JSON.stringify({
    scripted: { inputPerMillion: 1, outputPerMillion: 4, cachedInputPerMillion: 0.5 },
  }),
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SHOP = "src/cli/fixtures/shop.fixture.ts#buildShopAgent";
const REFUND = "src/cli/fixtures/refund.fixture.ts#buildRefundGraph";

/** Run the CLI in-process; the store is `NODESTEP_STORE=sqlite:<dir>/nodestep.db`. */
const cli = (argv: string[], tty = false) =>
  runCaptured(argv, { env: { NODESTEP_STORE: `sqlite:${db}` }, tty });

/** The transcript as docs/cli.md shows it: the command, then its output, the store as the default's path. */
function transcript(command: string, out: string): string {
  return `$ ${command}\n${out}`
    .replaceAll(db, ".nodestep/nodestep.db")
    .replaceAll(prices, "prices.json")
    .trimEnd();
}

/** The ```text blocks of docs/cli.md that follow a `<!-- transcript: NAME -->` line, by name. */
const doc = readFileSync(join(root, "docs/cli.md"), "utf8");
const docBlocks = new Map(
  [...doc.matchAll(/<!-- transcript: ([\w-]+) -->\n```text\n([\s\S]*?)```/g)].map((m) => [
    m[1]!,
    (m[2] ?? "").trimEnd(),
  ]),
);

const lines = (...l: string[]) => `${l.join("\n")}\n`;

describe("nodestep run, resume and history: transcripts", { timeout: 60_000 }, () => {
  it("run: the answer once, one line per tool call (a failed one too), usage and cost, how to go on", async () => {
    const r = await cli(["run", SHOP, "-m", "Where is A-1?", "-t", "s1", "--prices", prices]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      lines(
        `thread s1 · branch main · graph shop · store sqlite:${db}`,
        "you: Where is A-1?",
        'tool order_status(orderId=A-1) → {"orderId":"A-1","status":"shipped"}',
        "tool order_status(orderId=A-9) ✗ Error: no order A-9",
        "ai: A-1 has shipped; there is no order A-9.",
        "",
        "usage: 2 model calls · 300 tokens (240 in, 40 of them cached; 60 out) · $0.000460",
        `go on with: nodestep run ${SHOP} --thread s1 --message '…'`,
      ),
    );
    const shown = transcript(
      `nodestep run ${SHOP} -m "Where is A-1?" -t s1 --prices prices.json`,
      r.stdout,
    );
    expect(shown).toBe(docBlocks.get("run"));
  });

  it("run that pauses for an approval: the call waits, the exact resume command (exit 3)", async () => {
    const r = await cli(["run", SHOP, "-m", "Please refund A-1", "-t", "s1"]);
    expect([r.code, r.stderr]).toEqual([3, ""]);
    expect(r.stdout).toBe(
      lines(
        `thread s1 · branch main · graph shop · store sqlite:${db}`,
        "you: Please refund A-1",
        "tool refund(orderId=A-1, amount=25) · waiting (paused)",
        "usage: 1 model call · 150 tokens (120 in, 20 of them cached; 30 out)",
        "",
        "paused: waiting for 1 answer",
        '  4:0#c3 (node act): Run tool "refund" with {"orderId":"A-1","amount":25}?',
        "answer with:",
        `  nodestep resume s1 --graph ${SHOP} --answer 4:0#c3=yes`,
        '  (an approval takes yes, no, {"approved":false,"reason":"…"} or {"approved":true,"arguments":{…}})',
      ),
    );
    expect(transcript(`nodestep run ${SHOP} -m "Please refund A-1" -t s1`, r.stdout)).toBe(
      docBlocks.get("paused"),
    );
  });

  it("resume: the waiting call's line with its result, then the answer", async () => {
    const r = await cli(["resume", "s1", "--graph", SHOP, "--answer", "4:0#c3=yes"]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(r.stdout).toBe(
      lines(
        `thread s1 · branch main · graph shop · store sqlite:${db}`,
        'tool refund(orderId=A-1, amount=25) → {"refunded":25,"orderId":"A-1"}',
        "ai: Refunded 25 on A-1.",
        "",
        "usage: 1 model call · 150 tokens (120 in, 20 of them cached; 30 out)",
        `go on with: nodestep run ${SHOP} --thread s1 --message '…'`,
      ),
    );
    expect(transcript(`nodestep resume s1 --graph ${SHOP} --answer 4:0#c3=yes`, r.stdout)).toBe(
      docBlocks.get("resume"),
    );
  });

  it("a run on --store memory that pauses gives no resume command: the thread is gone", async () => {
    const r = await cli(["run", SHOP, "-m", "refund A-1", "--store", "memory", "-t", "m1"]);
    expect([r.code, r.stderr]).toEqual([3, ""]);
    expect(r.stdout.split("\n").slice(-4)).toEqual([
      "paused: waiting for 1 answer",
      '  1:0#c3 (node act): Run tool "refund" with {"orderId":"A-1","amount":25}?',
      "the memory store is gone when the command ends: run on a lasting store to answer",
      "",
    ]);
  });

  it("resume with a denial: the call's line shows it was denied, with the reason", async () => {
    expect((await cli(["run", SHOP, "-m", "refund A-1", "-t", "s2"])).code).toBe(3);
    const r = await cli([
      "resume",
      "s2",
      "--graph",
      SHOP,
      "--answer",
      '1:0#c3={"approved":false,"reason":"too much"}',
    ]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(r.stdout.split("\n").slice(1, 3)).toEqual([
      "tool refund(orderId=A-1, amount=25) ✗ Tool call denied by a person: too much",
      "ai: The refund was not made.",
    ]);
  });

  it("history: node names and what each step said, asked, ran and answered", async () => {
    const r = await cli(["history", "s1"]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(r.stdout).toBe(
      lines(
        "s1/main/1   run_started       step 0        you: Where is A-1?",
        "s1/main/2   step_committed    step 0 think  asks for order_status(orderId=A-1), order_status(orderId=A-9)",
        's1/main/3   task_cache        step 1 act    kept for a resume: order_status (call c1) → {"orderId":"A-1","status":"shipped"}',
        's1/main/4   step_committed    step 1 act    order_status → {"orderId":"A-1","status":"shipped"} · order_status ✗ Error: no order A-9',
        "s1/main/5   step_committed    step 2 think  ai: A-1 has shipped; there is no order A-9.",
        "s1/main/6   run_finished      step 3        completed",
        "s1/main/7   run_started       step 3        you: Please refund A-1",
        "s1/main/8   step_committed    step 3 think  asks for refund(orderId=A-1, amount=25)",
        's1/main/9   task_interrupted  step 4 act    asks 4:0#c3: Run tool "refund" with {"orderId":"A-1","amount":25}?',
        "s1/main/10  run_finished      step 4        paused: waiting for 4:0#c3",
        "s1/main/11  run_started       step 4        answered 4:0#c3=yes",
        's1/main/12  step_committed    step 4 act    refund → {"refunded":25,"orderId":"A-1"}',
        "s1/main/13  step_committed    step 5 think  ai: Refunded 25 on A-1.",
        "s1/main/14  run_finished      step 6        completed",
      ),
    );
    expect(transcript("nodestep history s1", r.stdout)).toBe(docBlocks.get("history"));
  });

  it("history of a paused and of a failed thread ends with the command that goes on", async () => {
    const paused = await cli(["run", REFUND, "-m", "Refund 250 please", "-t", "r1"]);
    expect(paused.code).toBe(3);
    const failed = await cli(["run", REFUND, "-m", "explode 3", "-t", "r2"]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toBe(
      lines(
        "nodestep: run failed: Error: the planner exploded",
        `(the thread keeps its state from before the failed step; retry with: nodestep resume r2 --graph ${REFUND})`,
      ),
    );
    const [h1, h2] = [await cli(["history", "r1"]), await cli(["history", "r2"])];
    expect(h1.stdout).toBe(
      lines(
        "r1/main/1  run_started       step 0          you: Refund 250 please",
        "r1/main/2  step_committed    step 0 plan     ai: A refund of 250 EUR needs approval. · also amount",
        "r1/main/3  task_interrupted  step 1 approve  asks approve: Refund 250 EUR?",
        "r1/main/4  run_finished      step 1          paused: waiting for approve",
        "",
        "paused: answer with: nodestep resume r1 --graph <module>#<export> --answer 'approve=<answer>'",
      ),
    );
    expect(h2.stdout).toBe(
      lines(
        "r2/main/1  run_started  step 0  you: explode 3",
        "r2/main/2  run_failed   step 0  failed: Error: the planner exploded",
        "",
        "failed: retry from before the failed step with: nodestep resume r2 --graph <module>#<export>",
      ),
    );
    const other = await cli(["history", "r1", "--store", `sqlite:${db}`]);
    expect(other.stdout.trimEnd().split("\n").at(-1)).toBe(
      `paused: answer with: nodestep resume r1 --graph <module>#<export> --store sqlite:${db} --answer 'approve=<answer>'`,
    );
  });

  it("--json: the end event carries the run's usage and cost", async () => {
    const r = await cli(["run", SHOP, "-m", "hello", "-t", "j1", "--json", "--prices", prices]);
    expect(r.code).toBe(0);
    const end = JSON.parse(r.stdout.trimEnd().split("\n").at(-1)!) as Record<string, unknown>;
    expect(end.usage).toEqual({
      usage: {
        inputTokens: 120,
        outputTokens: 30,
        totalTokens: 150,
        cachedInputTokens: 20,
        reasoningTokens: 0,
        calls: 1,
      },
      byModel: {
        scripted: {
          inputTokens: 120,
          outputTokens: 30,
          totalTokens: 150,
          cachedInputTokens: 20,
          reasoningTokens: 0,
          calls: 1,
        },
      },
      cost: { usd: 0.00023, byModel: { scripted: 0.00023 }, unpriced: [] },
    });
  });

  it("a price table without the model says so; a bad --prices file is a usage error", async () => {
    const other = join(dir, "other-prices.json");
    writeFileSync(
      other,
      JSON.stringify({ "gpt-4o": { inputPerMillion: 2.5, outputPerMillion: 10 } }),
    );
    const r = await cli(["run", SHOP, "-m", "hello", "-t", "p1", "--prices", other]);
    expect(r.stdout).toContain(
      "\nusage: 1 model call · 150 tokens (120 in, 20 of them cached; 30 out) · no price for scripted\n",
    );
    const bad = join(dir, "bad-prices.json");
    writeFileSync(bad, JSON.stringify({ scripted: { inputPerMillion: -1, outputPerMillion: 1 } }));
    expect(await cli(["run", SHOP, "-m", "hello", "--prices", bad])).toEqual({
      code: 2,
      stdout: "",
      stderr: `nodestep: --prices ${bad}["scripted"].inputPerMillion must be a number ≥ 0 (US dollars per million tokens), got -1\n`,
    });
  });

  it("on a terminal, a progress line on stderr, cleared before each output; stdout is the same", async () => {
    const plain = await cli([
      "run",
      SHOP,
      "-m",
      "Where is A-1?",
      "-t",
      "tty1",
      "--store",
      "memory",
    ]);
    const tty = await cli(
      ["run", SHOP, "-m", "Where is A-1?", "-t", "tty1", "--store", "memory"],
      true,
    );
    expect(tty.stdout).toBe(plain.stdout);
    expect(plain.stderr).toBe("");
    // Each drawing starts by clearing the line; the last write clears it.
    const drawings = tty.stderr.split(CLEAR_LINE).filter(Boolean);
    expect(drawings.length).toBeGreaterThan(0);
    for (const d of drawings)
      expect(d).toMatch(/^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] (think|act: order_status, order_status) · \d+\.\ds$/);
    expect(tty.stderr.endsWith(CLEAR_LINE)).toBe(true);
    const json = await cli(["run", SHOP, "-m", "hi", "--store", "memory", "--json"], true);
    const verbose = await cli(["run", SHOP, "-m", "hi", "--store", "memory", "--verbose"], true);
    expect([json.stderr, verbose.stderr]).toEqual(["", ""]);
  });
});
