import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it, vi } from "vitest";
import { ReplayServer } from "../integrations/testing/replay-server.js";

// A test here starts several processes one after another (the CLI, or an example and its
// workers), each 1–5 s of wall time on a loaded 2-core machine with two test workers: the
// budget is two minutes a test or hook, not vitest's 30 s (each process has its own 60 s timeout).
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const root = fileURLToPath(new URL("../..", import.meta.url));
const bin = join(root, "bin/nodestep.js");
const FIXTURE = "src/cli/fixtures/refund.fixture.ts";
const GRAPH = `${FIXTURE}#buildRefundGraph`;
const dir = mkdtempSync(join(tmpdir(), "nodestep-cli-"));
const db = join(dir, "threads.db");
const STORE = `sqlite:${db}`;

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  delete env.NODESTEP_STORE;
  delete env.NODESTEP_GRAPH;
  delete env.NODESTEP_API_KEY;
  return { ...env, ...extra };
}

/** Run `nodestep ARGS` as a child process, as a user would. */
function nodestep(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { cwd: root, env: cleanEnv(env), timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? Number((error as { code?: unknown }).code ?? 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const lines = (...l: string[]) => `${l.join("\n")}\n`;

describe("nodestep CLI", () => {
  it("runs a graph that pauses for approval: exit 3, the question and how to answer", async () => {
    const r = await nodestep([
      "run",
      GRAPH,
      "--message",
      "Refund 250 please",
      "--thread",
      "t1",
      "--store",
      STORE,
    ]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(
      lines(
        `thread t1 · branch main · graph refund · store ${STORE}`,
        "you: Refund 250 please",
        '• plan: {"progress":"planning"}',
        "ai: A refund of 250 EUR needs approval.",
        "",
        "paused: waiting for 1 answer",
        '  approve (node approve): {"question":"Refund 250 EUR?"}',
        "answer with:",
        `  nodestep resume t1 --graph ${GRAPH} --store ${STORE} --answer 'approve=<answer>'`,
      ),
    );
    expect(r.code).toBe(3);
  });

  it("resumes with the answer and prints the answer (with --verbose, each step's fields): exit 0", async () => {
    const r = await nodestep([
      "resume",
      "t1",
      "--graph",
      GRAPH,
      "--store",
      STORE,
      "--answer",
      "approve=true",
      "--verbose",
    ]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(
      lines(
        `thread t1 · branch main · graph refund · store ${STORE}`,
        "[1] approve: approved=true",
        "[2] reply: ai: Refunded 250 EUR.",
        "",
        "Refunded 250 EUR.",
        `go on with: nodestep run ${GRAPH} --thread t1 --store ${STORE} --message '…'`,
      ),
    );
    expect(r.code).toBe(0);
  });

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
      const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` };
      const app = `${FIXTURE}#buildChatApp`;
      const flag = await nodestep(
        ["run", app, "-m", "hi", "--store", "memory", "--model", "openai:gpt-test"],
        env,
      );
      const fromEnv = await nodestep(["run", app, "-m", "hi", "--store", "memory"], {
        ...env,
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
      await server.close();
    }
  }, 120_000);

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

  it("prints its version with --version and -V", async () => {
    const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      version: string;
    };
    const r = await Promise.all([nodestep(["--version"]), nodestep(["-V"])]);
    expect(r).toEqual([
      { code: 0, stdout: `${version}\n`, stderr: "" },
      { code: 0, stdout: `${version}\n`, stderr: "" },
    ]);
  });

  it("exits 0 quietly when the reader of its output goes away (| head)", async () => {
    const child = spawn(
      process.execPath,
      [bin, "run", GRAPH, "-m", "refund 3 slowly", "--json", "--store", STORE],
      { cwd: root, env: cleanEnv(), stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    child.stderr!.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
    // Read the first line, then close the pipe as `head -1` does, while the run goes on.
    const first = await new Promise<string>((resolve) => {
      let got = "";
      child.stdout!.on("data", (d: Buffer) => {
        got += d.toString();
        if (got.includes("\n")) resolve(got.split("\n")[0]!);
      });
    });
    child.stdout!.destroy();
    expect(JSON.parse(first)).toMatchObject({ event: "custom", node: "plan" });
    expect(await exited).toBe(0);
    expect(stderr).toBe("");
  });

  it("exits 0 when the reader goes away while the run is quiet, and the run ends paused (--json | head -1)", async () => {
    // "refund 300 slowly": the first line, 3 s of silence (the reader is gone by then), then a
    // pause for approval (exit 3 had the pipe stayed open), whose lines meet the closed pipe.
    const child = spawn(
      process.execPath,
      [bin, "run", GRAPH, "-m", "refund 300 slowly", "--json", "--store", "memory"],
      { cwd: root, env: cleanEnv(), stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    child.stderr!.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
    const first = await new Promise<string>((resolve) => {
      let got = "";
      child.stdout!.on("data", (d: Buffer) => {
        got += d.toString();
        if (got.includes("\n")) resolve(got.split("\n")[0]!);
      });
    });
    child.stdout!.destroy();
    expect(JSON.parse(first)).toMatchObject({ event: "custom", node: "plan" });
    expect(await exited).toBe(0);
    expect(stderr).toBe("");
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

  it("serves the API and the studio until SIGTERM", async () => {
    const child: ChildProcess = spawn(
      process.execPath,
      [bin, "serve", GRAPH, "--port", "0", "--store", "memory"],
      {
        cwd: root,
        env: cleanEnv(),
      },
    );
    let stdout = "";
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout!.on("data", (d: Buffer) => {
        stdout += d.toString();
        const m = /studio for graph "refund": (http:\/\/127\.0\.0\.1:\d+)\//.exec(stdout);
        if (m) resolve(m[1]!);
      });
      child.on("exit", () => reject(new Error(`serve exited: ${stdout}`)));
    });
    const graph = await fetch(`${url}/api/graph`);
    expect(graph.status).toBe(200);
    expect(((await graph.json()) as { name: string }).name).toBe("refund");
    const exited = new Promise<number | null>((resolve) =>
      child.on("exit", (code) => resolve(code)),
    );
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(stdout).toBe(
      lines(
        `nodestep studio for graph "refund": ${url}/`,
        `API: ${url}/api · store: memory`,
        "stopped",
      ),
    );
  });

  it("stops its server when its parent dies without passing a signal on", async () => {
    // A shell starts the command in the background and prints its pid; SIGKILL to the shell
    // passes nothing on (as npm exec does not pass SIGTERM on).
    const shell = spawn(
      "sh",
      [
        "-c",
        `"${process.execPath}" "${bin}" serve ${GRAPH} --port 0 --store memory & echo $!; wait`,
      ],
      {
        cwd: root,
        env: cleanEnv(),
      },
    );
    let out = "";
    const url = await new Promise<string>((resolve, reject) => {
      shell.stdout!.on("data", (d: Buffer) => {
        out += d.toString();
        const m = /studio for graph "refund": (http:\/\/127\.0\.0\.1:\d+)\//.exec(out);
        if (m) resolve(m[1]!);
      });
      shell.on("exit", () => reject(new Error(`shell exited: ${out}`)));
    });
    const pid = Number(out.split("\n")[0]);
    expect((await fetch(`${url}/health`)).status).toBe(200);
    shell.kill("SIGKILL");
    // The command notices within a second or so, stops its server and exits.
    let alive = true;
    for (let i = 0; i < 100 && alive; i++) {
      await new Promise((r) => setTimeout(r, 100));
      try {
        process.kill(pid, 0);
      } catch {
        alive = false;
      }
    }
    expect(alive).toBe(false);
    await expect(fetch(`${url}/health`)).rejects.toThrow();
  });
});
