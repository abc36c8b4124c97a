#!/usr/bin/env node
// `npm test` runs this first (the `pretest` script). The studio's browser test drives Debian's
// Chromium at /usr/bin/chromium. When it is missing: as root, install it from Debian's packages
// (apt-get update && apt-get install -y chromium); otherwise stop at once with one line that says
// which command installs it. Never a silent skip.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const CHROMIUM = "/usr/bin/chromium";
const INSTALL = "apt-get update && apt-get install -y chromium";

function run(command, args) {
  const r = spawnSync(command, args, {
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
  if (r.error) return r.error.message;
  return r.status === 0 ? null : `${command} ${args.join(" ")} exited with ${r.status}`;
}

if (!existsSync(CHROMIUM)) {
  const root = typeof process.getuid === "function" && process.getuid() === 0;
  if (!root || !existsSync("/usr/bin/apt-get")) {
    process.stderr.write(
      `npm test: the studio test needs Chromium at ${CHROMIUM}; install it with: sudo ${INSTALL}\n`,
    );
    process.exit(1);
  }
  process.stderr.write(`npm test: Chromium is missing; installing it: ${INSTALL}\n`);
  // Wait for another apt/dpkg run instead of failing on its lock.
  const lock = ["-o", "DPkg::Lock::Timeout=300"];
  const failed =
    run("apt-get", [...lock, "update"]) ?? run("apt-get", [...lock, "install", "-y", "chromium"]);
  if (failed || !existsSync(CHROMIUM)) {
    process.stderr.write(
      `npm test: installing Chromium failed (${failed ?? `no ${CHROMIUM} after install`}); install it with: ${INSTALL}\n`,
    );
    process.exit(1);
  }
}
