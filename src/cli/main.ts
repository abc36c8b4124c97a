/**
 * The `nodestep` executable's entry point (`bin/nodestep.js` loads it): runs the CLI on the
 * process's arguments and sets the exit code. Ctrl-C (or SIGTERM) cancels a run or stops the
 * server; a second Ctrl-C exits at once. The command also stops when its parent goes away
 * without passing a signal on (`npx` on SIGTERM), and when the reader of its output does
 * (`nodestep run … --json | head -3`): quietly then, with exit code 0.
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

// The reader closed the pipe: stop the run, write nothing more, exit 0. Node.js learns of it
// only on a write, and reports it after the write returns: when the run was quiet until its
// end, that is after runCli has returned and its exit code was set, so set 0 here too.
let outputClosed = false;
process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (e.code !== "EPIPE") throw e;
  outputClosed = true;
  process.exitCode = 0;
  if (!controller.signal.aborted) controller.abort();
});

// Orphaned: the parent died without passing its signal on (npm exec does not pass SIGTERM).
const parent = process.ppid;
const watch = setInterval(() => {
  if (process.ppid !== parent && !controller.signal.aborted) controller.abort();
}, 500);
watch.unref();

const code = await runCli(process.argv.slice(2), {
  stdout: (text) => {
    if (!outputClosed) process.stdout.write(text);
  },
  stderr: (text) => {
    if (!outputClosed) process.stderr.write(text);
  },
  env: process.env,
  signal: controller.signal,
});
process.exitCode = outputClosed ? 0 : code;
clearInterval(watch);
process.off("SIGINT", stop);
process.off("SIGTERM", stop);
