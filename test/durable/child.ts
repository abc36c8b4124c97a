/** Child processes of the durable-thread tests: the agent fixture, and waiting on its marker files. */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { SOURCE_LOADER } from "../source-loader.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const fixture = fileURLToPath(new URL("./fixtures/agent-child.ts", import.meta.url));

/** A running fixture process, its output so far, and a promise of its exit. */
export interface Child {
  process: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Start `agent-child.ts <kind> <target> <dir> <mode>` as a user would run a script. */
export function startChild(
  kind: "sqlite" | "postgres",
  target: string,
  dir: string,
  mode: "hold" | "kill" | "resume",
  env: Record<string, string> = {},
): Child {
  const p = spawn(process.execPath, [...SOURCE_LOADER, fixture, kind, target, dir, mode], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  let out = "";
  let err = "";
  p.stdout.on("data", (d: Buffer) => {
    out += d.toString();
  });
  p.stderr.on("data", (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    p.on("exit", (code, signal) => resolve({ code, signal })),
  );
  return { process: p, stdout: () => out, stderr: () => err, exited };
}

/** Run the fixture to its end; fails with its stderr when it exits with an error. */
export async function runChild(
  kind: "sqlite" | "postgres",
  target: string,
  dir: string,
  mode: "hold" | "kill" | "resume",
  env: Record<string, string> = {},
): Promise<string> {
  const c = startChild(kind, target, dir, mode, env);
  const { code } = await c.exited;
  if (code !== 0) throw new Error(`agent-child ${mode} exited with ${code}: ${c.stderr()}`);
  return c.stdout();
}

/**
 * Wait until `check()` is true, polling; fails (with what the child printed) when the child
 * exits first or after `limitMs`. Not a timing assertion: the limit only keeps a broken test
 * from hanging.
 */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  child: Child | null,
  limitMs = 20_000,
): Promise<void> {
  let exited = false;
  void child?.exited.then(() => {
    exited = true;
  });
  const until = Date.now() + limitMs;
  for (;;) {
    if (await check()) return;
    if (exited) throw new Error(`the child exited before ${what}: ${child?.stderr()}`);
    if (Date.now() > until)
      throw new Error(`gave up waiting for ${what}: ${child?.stderr() ?? ""}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Whether a file exists. */
export const exists = (path: string) => () => existsSync(path);
