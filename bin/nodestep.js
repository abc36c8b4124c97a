#!/usr/bin/env node
// The `nodestep` command. In a checkout of nodestep (src/cli/main.ts next to this file, and tsx
// installed) it runs the TypeScript sources in a child process under tsx, with the checkout's
// tsconfig.json (whose paths map `nodestep/*` to src/), so `nodestep` always runs the code as it
// is now; NODESTEP_USE_DIST=1 forces the build. From an installed package it runs the build in dist/, and registers tsx when it is
// installed so that graph modules may be TypeScript. See docs/cli.md.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const source = `${root}src/cli/main.ts`;
const built = `${root}dist/cli/main.js`;
const require = createRequire(import.meta.url);

function resolves(name) {
  try {
    require.resolve(name);
    return true;
  } catch {
    return false;
  }
}

const useSource = process.env.NODESTEP_USE_DIST !== "1" && existsSync(source) && resolves("tsx");

if (useSource) {
  // NODESTEP_SOURCE_LOADER: another module to `--import` than tsx (the tests' lighter loader,
  // test/setup/source-loader.mjs); a checkout-only knob, like the source mode itself.
  const loader = process.env.NODESTEP_SOURCE_LOADER || "tsx";
  const child = spawn(process.execPath, ["--import", loader, source, ...process.argv.slice(2)], {
    stdio: "inherit",
    env: { TSX_TSCONFIG_PATH: `${root}tsconfig.json`, ...process.env },
  });
  // The child gets Ctrl-C from the terminal itself; a SIGTERM sent to this process is passed on.
  const forward = (signal) => () => child.kill(signal);
  process.on("SIGINT", () => {});
  process.on("SIGTERM", forward("SIGTERM"));
  // A parent that dies without passing a signal on (npm exec does not, on SIGTERM) leaves this
  // process orphaned: stop the child then too, instead of leaving a server running.
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid !== parent) child.kill("SIGTERM");
  }, 1000);
  watch.unref();
  child.on("exit", (code, signal) => {
    clearInterval(watch);
    process.exitCode = code ?? (signal === "SIGINT" ? 130 : 1);
  });
} else if (existsSync(built)) {
  try {
    const { register } = await import("tsx/esm/api");
    register();
  } catch {
    // tsx is not installed: graph modules must be JavaScript.
  }
  await import(pathToFileURL(built).href);
} else {
  process.stderr.write(
    "nodestep: neither dist/cli/main.js (run npm run build) nor src/cli/main.ts with tsx was found\n",
  );
  process.exitCode = 1;
}
