/**
 * The `nodestep` executable as a user runs it (bin/nodestep.js, which starts src/cli/main.ts in
 * a child process): what only a process shows. A run that pauses (exit 3) and its resume in a
 * second process on the same SQLite file (exit 0), `--version`, a reader of its output that goes
 * away (`| head`), `serve` until SIGTERM, and a server whose parent dies. The commands' output
 * and errors are tested in-process in cli-commands.test.ts.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it, vi } from "vitest";

// A test here starts processes (bin/nodestep.js starts the CLI in a child of its own), each 1–5 s
// of wall time on a loaded 2-core machine with two test workers: the budget is two minutes a
// test or hook, not vitest's 30 s (each process has its own 60 s timeout).
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
});

// Independent of each other, and mostly waiting (on a child's start, its 3 s of quiet, its
// exit): at the same time.
describe.concurrent("nodestep CLI processes", () => {
  it("prints its version with --version and -V", async ({ expect }) => {
    const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      version: string;
    };
    const r = await Promise.all([nodestep(["--version"]), nodestep(["-V"])]);
    expect(r).toEqual([
      { code: 0, stdout: `${version}\n`, stderr: "" },
      { code: 0, stdout: `${version}\n`, stderr: "" },
    ]);
  });

  it("exits 0 quietly when the reader of its output goes away (| head)", async ({ expect }) => {
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

  it("exits 0 when the reader goes away while the run is quiet, and the run ends paused (--json | head -1)", async ({
    expect,
  }) => {
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

  it("serves the API and the studio until SIGTERM", async ({ expect }) => {
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

  it("stops its server when its parent dies without passing a signal on", async ({ expect }) => {
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
