/**
 * The `nodestep` executable's entry point (`bin/nodestep.js` loads it): runs the CLI on the
 * process's arguments and sets the exit code. Ctrl-C (or SIGTERM) cancels a run or stops the
 * server; a second Ctrl-C exits at once.
 *
 * @module
 */
import { runCli } from "./program.js";

const controller = new AbortController();
const stop = () => {
  if (controller.signal.aborted) process.exit(130);
  controller.abort();
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  signal: controller.signal,
});
process.off("SIGINT", stop);
process.off("SIGTERM", stop);
