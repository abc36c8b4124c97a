/**
 * The `nodestep` commands and their errors, run in-process through `runCli`
 * (cli-capture.fixture.ts) with output that is not a terminal: threads, history, fork, `--json`,
 * a `{ graph, context }` export, a graph export with its own store, `--model` and
 * `$NODESTEP_MODEL`, a failed run, an `--input` that does not fit, an unknown thread and usage
 * errors. What only a process shows (the exit code of the executable, `--version`, a reader
 * that goes away, signals, an orphaned server) is in cli.test.ts, which runs bin/nodestep.js.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ReplayServer } from "../integrations/testing/replay-server.js";
import { type CliOutcome, runCaptured } from "./cli-capture.fixture.js";

const FIXTURE = "src/cli/fixtures/refund.fixture.ts";
const GRAPH = `${FIXTURE}#buildRefundGraph`;
const dir = mkdtempSync(join(tmpdir(), "nodestep-cli-commands-"));
const db = join(dir, "threads.db");
const STORE = `sqlite:${db}`;

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Run `nodestep ARGS` in-process with `env` as its environment (nothing else of this process's). */
const nodestep = (args: string[], env: Record<string, string> = {}): Promise<CliOutcome> =>
  runCaptured(args, { env });

const lines = (...l: string[]) => `${l.join("\n")}\n`;

// Thread t1 as cli.test.ts leaves it (there through the executable): paused for approval, then
// answered with approve=true.
beforeAll(async () => {
  const run = await nodestep([
    "run",
    GRAPH,
    "-m",
    "Refund 250 please",
    "-t",
    "t1",
    "--store",
    STORE,
  ]);
  const resume = await nodestep([
    "resume",
    "t1",
    "--graph",
    GRAPH,
    "--store",
    STORE,
    "--answer",
    "approve=true",
  ]);
  expect([run.code, run.stderr, resume.code, resume.stderr]).toEqual([3, "", 0, ""]);
});

describe("nodestep commands (in-process)", () => {
  it("lists threads and a thread's history", async () => {
    const [threads, text, history] = await Promise.all([
      nodestep(["threads", "--store", STORE, "--json"]),
      nodestep(["threads", "--store", STORE]),
      nodestep(["history", "t1", "--store", STORE]),
    ]);
    expect(threads.code).toBe(0);
    const list = JSON.parse(threads.stdout) as { threadId: string; branches: string[] }[];
    expect(list.map((t) => [t.threadId, t.branches])).toEqual([["t1", ["main"]]]);
    expect(text.stdout).toMatch(
      /^t1 {2}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z {2}branches: main\n$/,
    );

    expect(history.code).toBe(0);
    expect(history.stdout).toBe(
      lines(
        "t1/main/1  run_started       step 0          you: Refund 250 please",
        "t1/main/2  step_committed    step 0 plan     ai: A refund of 250 EUR needs approval. · also amount",
        "t1/main/3  task_interrupted  step 1 approve  asks approve: Refund 250 EUR?",
        "t1/main/4  run_finished      step 1          paused: waiting for approve",
        "t1/main/5  run_started       step 1          answered approve=true",
        "t1/main/6  step_committed    step 1 approve  approved=true",
        "t1/main/7  step_committed    step 2 reply    ai: Refunded 250 EUR.",
        "t1/main/8  run_finished      step 3          completed",
      ),
    );
  });

  it("forks a thread after an event and runs the branch to another answer", async () => {
    const fork = await nodestep([
      "fork",
      "t1",
      "--event",
      "t1/main/2",
      "--new-branch",
      "alt",
      "--store",
      STORE,
    ]);
    expect(fork).toEqual({
      code: 0,
      stderr: "",
      stdout: lines(
        "forked thread t1 after t1/main/2: branch alt",
        `run on it: nodestep run <module>#<export> --thread t1 --branch alt --store ${STORE} --message "…"`,
      ),
    });
    const cont = await nodestep([
      "run",
      GRAPH,
      "--thread",
      "t1",
      "--branch",
      "alt",
      "--store",
      STORE,
    ]);
    expect(cont.code).toBe(3);
    expect(cont.stdout).toContain(
      `  nodestep resume t1 --graph ${GRAPH} --store ${STORE} --branch alt --answer 'approve=<answer>'\n`,
    );
    const no = await nodestep([
      "resume",
      "t1",
      "--graph",
      GRAPH,
      "--store",
      STORE,
      "--branch",
      "alt",
      "--answer",
      "approve=no",
    ]);
    expect(no.code).toBe(0);
    expect(no.stdout).toBe(
      lines(
        `thread t1 · branch alt · graph refund · store ${STORE}`,
        "ai: The refund of 250 EUR was declined.",
        "",
        `go on with: nodestep run ${GRAPH} --thread t1 --store ${STORE} --branch alt --message '…'`,
      ),
    );
  });

  it("prints events as JSON lines with --json", async () => {
    const r = await nodestep([
      "run",
      GRAPH,
      "-m",
      "refund 20",
      "--thread",
      "j1",
      "--store",
      "memory",
      "--json",
    ]);
    expect(r.code).toBe(0);
    const events = r.stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.map((e) => [e.event, e.node])).toEqual([
      ["custom", "plan"],
      ["updates", "plan"],
      ["updates", "reply"],
      ["end", undefined],
    ]);
    expect(events[3]).toMatchObject({
      threadId: "j1",
      status: "completed",
      interrupts: [],
      state: { amount: 20, approved: null },
    });
  });

  it("passes the context of a { graph, context } export to its runs", async () => {
    const r = await nodestep([
      "run",
      `${FIXTURE}#buildRefundApp`,
      "-m",
      "refund 30",
      "--store",
      "memory",
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout.endsWith("\nai: Refunded 30 USD automatically.\n")).toBe(true);
  });

  it("runs a graph export on its own store, and refuses --store for it", async () => {
    const own = await nodestep(["run", `${FIXTURE}#refundGraph`, "-m", "refund 3"]);
    expect(own.code).toBe(0);
    expect(own.stdout.startsWith("thread t-")).toBe(true);
    expect(own.stdout).toContain(" · store the graph's own store (MemoryStateStore)\n");
    const refused = await nodestep([
      "run",
      `${FIXTURE}#refundGraph`,
      "-m",
      "refund 3",
      "--store",
      "memory",
    ]);
    expect(refused).toEqual({
      code: 2,
      stdout: "",
      stderr: `nodestep: ${FIXTURE}#refundGraph is a graph with its own store, so --store does not apply; export a function ({ stateStore }) => Graph to run it on the CLI's store\n`,
    });
  });

  it("gives the graph factory the chat model of --model (and $NODESTEP_MODEL); refuses a bad one in one line", async () => {
    const server = await ReplayServer.start();
    try {
      server.fallback = {
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          id: "chatcmpl-1",
          object: "chat.completion",
          created: 1741569952,
          model: "gpt-test",
          choices: [
            {
              index: 0,
              message: { role: "assistant", content: "Hello there." },
              finish_reason: "stop",
            },
          ],
        }),
      };
      // The OpenAI SDK reads its key and base URL from the process's environment.
      vi.stubEnv("OPENAI_API_KEY", "sk-test");
      vi.stubEnv("OPENAI_BASE_URL", `${server.url}/v1`);
      const app = `${FIXTURE}#buildChatApp`;
      const flag = await nodestep([
        "run",
        app,
        "-m",
        "hi",
        "--store",
        "memory",
        "--model",
        "openai:gpt-test",
      ]);
      const fromEnv = await nodestep(["run", app, "-m", "hi", "--store", "memory"], {
        NODESTEP_MODEL: "openai:gpt-test",
      });
      for (const r of [flag, fromEnv]) {
        expect([r.code, r.stderr]).toEqual([0, ""]);
        expect(r.stdout).toContain("Hello there.");
      }
      expect(server.requests.map((q) => (q.json as { model: string }).model)).toEqual([
        "gpt-test",
        "gpt-test",
      ]);
      const bad = await nodestep([
        "run",
        app,
        "-m",
        "hi",
        "--store",
        "memory",
        "--model",
        "mistral:large",
      ]);
      expect(bad).toEqual({
        code: 2,
        stdout: "",
        stderr:
          'nodestep: --model: chatModel("mistral:large"): no provider "mistral" is registered and the package @ai-sdk/mistral is not installed: run `npm install @ai-sdk/mistral` (or registerProvider("mistral", ...))\n',
      });
      const graph = await nodestep([
        "run",
        `${FIXTURE}#refundGraph`,
        "-m",
        "refund 3",
        "--model",
        "openai:x",
      ]);
      expect(graph.stderr).toBe(
        `nodestep: ${FIXTURE}#refundGraph is a graph with its own model, so --model does not apply; export a function ({ stateStore, chat }) => Graph to run it with the CLI's model\n`,
      );
    } finally {
      vi.unstubAllEnvs();
      await server.close();
    }
  });

  it("exits 1 with the error when the run fails, and says how to retry where there is a thread to retry", async () => {
    const [memory, sqlite] = await Promise.all([
      nodestep(["run", GRAPH, "-m", "explode 9", "--thread", "f1", "--store", "memory"]),
      nodestep(["run", GRAPH, "-m", "explode 9", "--thread", "f2", "--store", STORE]),
    ]);
    expect([memory.code, memory.stderr]).toEqual([
      1,
      lines(
        "nodestep: run failed: Error: the planner exploded",
        "(the memory store is gone when the command ends)",
      ),
    ]);
    expect([sqlite.code, sqlite.stderr]).toEqual([
      1,
      lines(
        "nodestep: run failed: Error: the planner exploded",
        `(the thread keeps its state from before the failed step; retry with: nodestep resume f2 --graph ${GRAPH} --store ${STORE})`,
      ),
    ]);
  });

  it("exits 2 for an --input that does not fit the state, and stores nothing", async () => {
    const [unknown, wrongType] = await Promise.all([
      nodestep(["run", GRAPH, "--input", '{"nope":1}', "--thread", "bad1", "--store", STORE]),
      nodestep(["run", GRAPH, "-i", '{"amount":"x"}', "--thread", "bad2", "--store", STORE]),
    ]);
    expect([unknown.code, unknown.stderr]).toEqual([
      2,
      'nodestep: --input does not fit the graph\'s state: The run input wrote unknown state field "nope"; declared fields: messages, amount, approved\n',
    ]);
    expect([wrongType.code, wrongType.stderr]).toEqual([
      2,
      'nodestep: --input does not fit the graph\'s state: Invalid value for state field "amount" written by the run input: Invalid input: expected number, received string\n',
    ]);
    expect(await nodestep(["history", "bad1", "--store", STORE])).toEqual({
      code: 1,
      stdout: "",
      stderr: `nodestep: no thread "bad1" in ${STORE}\n`,
    });
  });

  it("exits 1 for an unknown thread", async () => {
    expect(await nodestep(["history", "ghost", "--store", STORE])).toEqual({
      code: 1,
      stdout: "",
      stderr: `nodestep: no thread "ghost" in ${STORE}\n`,
    });
  });

  it("exits 2 for usage errors, with a message", async () => {
    const usage = (stderr: string) => ({ code: 2, stdout: "", stderr });
    const results = await Promise.all([
      nodestep(["bogus"]),
      nodestep(["run", GRAPH, "--store", "memory"]),
      nodestep(["run", GRAPH, "-m", "hi", "--store", "redis://x"]),
      nodestep(["run", `${FIXTURE}#nope`, "-m", "hi", "--store", "memory"]),
      nodestep(["run", `${FIXTURE}#notAGraph`, "-m", "hi", "--store", "memory"]),
      nodestep(["resume", "t1", "--graph", GRAPH, "--store", STORE, "--answer", "yes"]),
    ]);
    expect(results).toEqual([
      usage("nodestep: unknown command 'bogus'\n(run nodestep --help for usage)\n"),
      usage("nodestep: give --message or --input (or --thread to continue a thread)\n"),
      usage(
        'nodestep: --store must be "memory", "sqlite:FILE" or a postgres:// connection string, got "redis://x"\n',
      ),
      usage(
        `nodestep: ${FIXTURE} has no export "nope"; its exports: buildChatApp, buildRefundApp, buildRefundGraph, default, notAGraph, refundGraph\n`,
      ),
      usage(
        `nodestep: ${FIXTURE}#notAGraph is neither a Graph nor a function ({ stateStore }) => Graph; it is object\n`,
      ),
      usage('nodestep: --answer takes KEY=VALUE, got "yes"\n'),
    ]);
  });
});
