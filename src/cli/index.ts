/**
 * `nodestep/cli`: the `nodestep` command as a function, and the shapes a graph module gives it.
 * {@link runCli} runs the same CLI as the executable on an argument list and resolves with the
 * exit code; it never throws and never calls `process.exit`.
 *
 * @example
 * ```ts
 * import { runCli } from "nodestep/cli";
 * const code = await runCli(["threads", "--store", "sqlite:threads.db"], {
 *   stdout: (t) => process.stdout.write(t),
 *   stderr: (t) => process.stderr.write(t),
 *   env: process.env,
 * });
 * ```
 *
 * @module
 */

export { parseAnswer } from "./args.js";
export type { GraphApp, GraphExport, GraphFactoryOptions } from "./load.js";
export { type CliIo, ExitCode, runCli, VERSION } from "./program.js";
