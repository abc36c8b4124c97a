/**
 * Tests' way to run the CLI in-process: `runCli` with its output captured.
 *
 * @module
 */
import { runCli } from "./program.js";

/** What one CLI call printed and its exit code. */
export interface CliOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run `nodestep ARGV` in-process with `env` (default `{}`), output not a terminal unless `tty`. */
export async function runCaptured(
  argv: string[],
  options: { env?: Record<string, string>; tty?: boolean } = {},
): Promise<CliOutcome> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(argv, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    env: options.env ?? {},
    tty: options.tty ?? false,
  });
  return { code, stdout, stderr };
}
