/**
 * `nodestep run -m` on an agent thread paused on an approval: the agent refuses the input
 * (PendingToolCallsError) before writing anything; the CLI exits 2 with the refusal and
 * prints the `nodestep resume` answer that works, not a retry that fails again. `nodestep
 * fork` at an event after which the branch is paused prints the same resume hint as
 * `nodestep history -b <branch>`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { AIMessage } from "../chat/index.js";
import { SqliteStateStore } from "../integrations/sqlite/index.js";
import { runCaptured } from "./cli-capture.fixture.js";
import { buildShopAgent } from "./fixtures/shop.fixture.js";

const dir = mkdtempSync(join(tmpdir(), "nodestep-cli-refused-"));
const db = join(dir, "nodestep.db");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SHOP = "src/cli/fixtures/shop.fixture.ts#buildShopAgent";

/** Run the CLI in-process on `NODESTEP_STORE=sqlite:<dir>/nodestep.db`. */
const cli = (argv: string[]) => runCaptured(argv, { env: { NODESTEP_STORE: `sqlite:${db}` } });

const lines = (...l: string[]) => `${l.join("\n")}\n`;

describe("new input on a thread waiting on an approval", () => {
  it("run -m is refused (exit 2), nothing is written, and the resume it suggests answers it", async () => {
    expect((await cli(["run", SHOP, "-m", "refund A-1", "-t", "p1"])).code).toBe(3);
    const before = await cli(["history", "p1"]);
    const r = await cli(["run", SHOP, "-m", "hi", "-t", "p1"]);
    expect(r.stdout).toBe(
      lines(
        `thread p1 · branch main · graph shop · store sqlite:${db}`,
        "you: hi",
        "",
        "refused: tool call c3 without results; nothing was written",
        "",
        "paused: waiting for 1 answer",
        '  1:0#c3 (node act): Run tool "refund" with {"orderId":"A-1","amount":25}?',
        "answer with:",
        `  nodestep resume p1 --graph ${SHOP} --answer 1:0#c3=yes`,
        '  (an approval takes yes, no, {"approved":false,"reason":"…"} or {"approved":true,"arguments":{…}})',
        "or fork the thread before the model's request (nodestep fork p1 --event p1/main/1) and run on the branch",
      ),
    );
    expect(r.stderr).toBe(
      `nodestep: --message was refused: Thread "p1" of graph "shop" cannot take new input: tool call "c3" of the AIMessage at index 1 has no result and it waits on interrupt "1:0#c3". Answer with invoke(null, { threadId: "p1", resume: { "1:0#c3": … } }), or fork the thread at event "p1/main/1" (before the model's request) and send the input on the branch. Nothing was written\n`,
    );
    expect(r.code).toBe(2);
    expect(await cli(["history", "p1"])).toEqual(before);
    const done = await cli(["resume", "p1", "--graph", SHOP, "--answer", "1:0#c3=yes"]);
    expect([done.code, done.stderr]).toEqual([0, ""]);
    expect(done.stdout).toContain("ai: Refunded 25 on A-1.\n");
  });

  it("fork after the pause prints the branch's resume hint, as history -b does", async () => {
    expect((await cli(["run", SHOP, "-m", "refund A-1", "-t", "p2"])).code).toBe(3);
    const fork = await cli(["fork", "p2", "--event", "p2/main/4", "--new-branch", "b"]);
    const hint =
      "paused: answer with: nodestep resume p2 --graph <module>#<export> --branch b --answer '1:0#c3=<answer>'";
    expect(fork).toEqual({
      code: 0,
      stderr: "",
      stdout: lines("forked thread p2 after p2/main/4: branch b", hint),
    });
    expect((await cli(["history", "p2", "-b", "b"])).stdout.endsWith(`\n\n${hint}\n`)).toBe(true);
    // Before the pause the branch takes new input.
    const early = await cli(["fork", "p2", "--event", "p2/main/1", "--new-branch", "c"]);
    expect(early.stdout).toBe(
      lines(
        "forked thread p2 after p2/main/1: branch c",
        `run on it: nodestep run <module>#<export> --thread p2 --branch c --message "…"`,
      ),
    );
  });

  it("a graph's own checkInput refusal: exit 1, nothing written, no resume suggested", async () => {
    const ONE = "src/cli/fixtures/storeless.fixture.ts#oneShot";
    expect((await cli(["run", ONE, "--input", '{"count":1}', "-t", "o1"])).code).toBe(0);
    const r = await cli(["run", ONE, "--input", '{"count":5}', "-t", "o1"]);
    expect([r.code, r.stderr]).toEqual([
      1,
      'nodestep: run failed: ValueError: thread "o1" takes one input\n(nothing was written: thread o1 is as it was)\n',
    ]);
  });
});

describe("new input on a thread another run holds", () => {
  it("run -m fails (exit 1), says the message was not sent, and writes nothing", async () => {
    expect((await cli(["run", SHOP, "-m", "where is A-1?", "-t", "b1"])).code).toBe(0);
    const before = await cli(["history", "b1"]);
    const store = new SqliteStateStore({ path: db });
    try {
      // Another run (another process, say) holds the thread's lease.
      expect(await store.acquireLease("b1", "main", "other-run", 30_000)).toBe(true);
      const r = await cli(["run", SHOP, "-m", "hi", "-t", "b1"]);
      expect(r).toEqual({
        code: 1,
        stdout: lines(`thread b1 · branch main · graph shop · store sqlite:${db}`, "you: hi"),
        stderr:
          'nodestep: Thread "b1" (branch "main") is already running; graph "shop" cannot start a second run on it until the first ends (or its lease of 30000 ms expires); pass onBusy: "enqueue" to wait for it, "interrupt" to stop it or "rollback" to undo it (docs/busy-threads.md)\n(--message was not sent; thread b1 is as it was; run the command again with --on-busy enqueue to wait for the other run, interrupt to stop it or rollback to undo it)\n',
      });
      const resumed = await cli(["resume", "b1", "--graph", SHOP]);
      expect([resumed.code, resumed.stderr.split("\n")[1]]).toEqual([
        1,
        "(nothing was written; thread b1 is as it was; run the command again with --on-busy enqueue to wait for the other run, interrupt to stop it or rollback to undo it)",
      ]);
    } finally {
      await store.close();
    }
    expect(await cli(["history", "b1"])).toEqual(before);
  });

  it("--on-busy enqueue waits for the other run's lease and then runs; bad --on-busy values are usage errors", async () => {
    expect((await cli(["run", SHOP, "-m", "where is A-1?", "-t", "q1"])).code).toBe(0);
    const store = new SqliteStateStore({ path: db });
    try {
      expect(await store.acquireLease("q1", "main", "other-run", 30_000)).toBe(true);
      const released = new Promise<void>((resolve) =>
        setTimeout(() => {
          void store.releaseLease("q1", "main", "other-run").then(() => resolve());
        }, 150),
      );
      const r = await cli([
        "run",
        SHOP,
        "-m",
        "and A-2?",
        "-t",
        "q1",
        "--on-busy",
        "enqueue",
        "--on-busy-timeout",
        "10000",
      ]);
      await released;
      expect([r.code, r.stderr]).toEqual([0, ""]);
      expect(r.stdout.split("\n")[1]).toBe("you: and A-2?");
    } finally {
      await store.close();
    }
    const bad = await cli(["run", SHOP, "-m", "hi", "-t", "q1", "--on-busy", "wait"]);
    expect([bad.code, bad.stdout, bad.stderr]).toEqual([
      2,
      "",
      "nodestep: option '--on-busy <policy>' argument 'wait' is invalid. Allowed choices are reject, enqueue, interrupt, rollback.\n(run nodestep --help for usage)\n",
    ]);
    // Every value out of 0..3600000 gets the one message, with its range (a number too large
    // for a safe integer was "must be an integer ≥ 0", which it is).
    for (const ms of ["99999999999999999999", "3600001", "-5", "1e3", "abc", ""]) {
      const r = await cli([
        "run",
        SHOP,
        "-m",
        "hi",
        "-t",
        "q1",
        "--on-busy",
        "enqueue",
        "--on-busy-timeout",
        ms,
      ]);
      expect([r.code, r.stdout, r.stderr]).toEqual([
        2,
        "",
        `nodestep: --on-busy-timeout must be an integer from 0 to 3600000 (ms), got ${JSON.stringify(ms)}\n`,
      ]);
    }
    const lonely = await cli(["run", SHOP, "-m", "hi", "-t", "q1", "--on-busy-timeout", "10"]);
    expect([lonely.code, lonely.stdout, lonely.stderr]).toEqual([
      2,
      "",
      "nodestep: --on-busy-timeout is how long --on-busy enqueue, interrupt or rollback waits; give one of them with it\n",
    ]);
  });

  it("--on-busy that waited out its --on-busy-timeout: the advice is a longer --on-busy-timeout, and interrupt says the other run was asked to stop", async () => {
    expect((await cli(["run", SHOP, "-m", "where is A-1?", "-t", "w1"])).code).toBe(0);
    const before = await cli(["history", "w1"]);
    const store = new SqliteStateStore({ path: db });
    try {
      expect(await store.acquireLease("w1", "main", "other-run", 30_000)).toBe(true);
      const busy = (policy: string) =>
        cli(["run", SHOP, "-m", "hi", "-t", "w1", "--on-busy", policy, "--on-busy-timeout", "20"]);
      const waited = (policy: string) =>
        `nodestep: Thread "w1" (branch "main") was still running after graph "shop" waited 20 ms for it (onBusy "${policy}"); nothing was run. Raise onBusyTimeoutMs (at most 3600000), or try again later\n`;
      const enqueued = await busy("enqueue");
      expect([enqueued.code, enqueued.stderr]).toEqual([
        1,
        `${waited("enqueue")}(--message was not sent; thread w1 is as it was; the other run still holds it: run the command again with a longer --on-busy-timeout (at most 3600000 ms), or later)\n`,
      ]);
      expect(await store.stopRequested("w1", "main", "other-run")).toBeNull();
      const interrupted = await busy("interrupt");
      expect([interrupted.code, interrupted.stderr]).toEqual([
        1,
        `${waited("interrupt")}(--message was not sent, but the other run was asked to stop and stops at its next superstep; run the command again with a longer --on-busy-timeout (at most 3600000 ms), or later)\n`,
      ]);
      expect(await store.stopRequested("w1", "main", "other-run")).not.toBeNull();
      const resumed = await cli([
        "resume",
        "w1",
        "--graph",
        SHOP,
        "--on-busy",
        "rollback",
        "--on-busy-timeout",
        "0",
      ]);
      expect([resumed.code, resumed.stderr.split("\n")[1]]).toEqual([
        1,
        "(nothing was written, but the other run was asked to stop and stops at its next superstep, not undone; run the command again with a longer --on-busy-timeout (at most 3600000 ms), or later)",
      ]);
    } finally {
      await store.close();
    }
    expect(await cli(["history", "w1"])).toEqual(before);
  });

  it("tool calls written by a state update (nothing runs next): no resume is suggested, as it would run nothing", async () => {
    expect((await cli(["run", SHOP, "-m", "where is A-2?", "-t", "u1"])).code).toBe(0);
    const store = new SqliteStateStore({ path: db });
    const agent = buildShopAgent({ stateStore: store });
    // The fork is at the thread's last event before the update (its turn's run_finished).
    expect((await agent.history("u1")).at(-1)!.id).toBe("u1/main/3");
    await agent.updateState(
      "u1",
      {
        messages: [
          AIMessage({
            content: null,
            toolCalls: [{ id: "u9", name: "orderStatus", arguments: {}, argumentsError: null }],
          }),
        ],
      },
      { asNode: "think" },
    );
    expect((await agent.getState("u1")).next).toEqual([]);
    await store.close();
    const r = await cli(["run", SHOP, "-m", "hi", "-t", "u1"]);
    expect([r.code, r.stdout.split("\n").slice(2)]).toEqual([
      2,
      [
        "",
        "refused: tool call u9 without results; nothing was written",
        "nothing runs next on the thread to answer them: add a tool message for each with the",
        "library's graph.updateState",
        "or fork the thread before the model's request (nodestep fork u1 --event u1/main/3) and run on the branch",
        "",
      ],
    ]);
  });
});
