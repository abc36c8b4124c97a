import { accessSync, constants, readFileSync, statfsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";
import { SlowFirstSequencer } from "./test/setup/slow-first-sequencer.js";

// `nodestep` and its subpaths resolve to the sources here, through tsconfig.json's `paths` (which
// tsx reads too, for the examples and child processes run with `node --import tsx`). The published
// export map points at dist/ only.
const tsconfig = JSON.parse(readFileSync(new URL("./tsconfig.json", import.meta.url), "utf8")) as {
  compilerOptions: { paths: Record<string, [string]> };
};
const alias = Object.entries(tsconfig.compilerOptions.paths).map(([name, [file]]) => ({
  find: new RegExp(`^${name.replace("/", "\\/")}$`),
  replacement: fileURLToPath(new URL(file, import.meta.url)),
}));

// The `cold`, `cold-sqlite` and `cold-postgres` projects run the suites of threads,
// interrupts, approvals, subgraphs and sub-agents again with the cold test mode on
// (test/setup/cold-mode.ts): every graph call runs on a new graph object over a new store
// instance on the same data, and folds its thread from the store (issue 13); on a memory store,
// a SQLite file and a PostgreSQL schema. `--project default` skips them.
const COLD = [
  "src/graph/graph.test.ts",
  "src/graph/graph-checks.test.ts",
  "src/graph/graph-run-control.test.ts",
  "src/graph/threads.test.ts",
  "src/graph/subgraph.test.ts",
  "src/graph/sub-agents.test.ts",
  "src/graph/cold-warm.test.ts",
  "src/graph/fork-children.test.ts",
  "src/graph/stream-modes.test.ts",
  "src/graph/subgraph-breakpoints.test.ts",
  "src/middleware/approval.test.ts",
  "src/middleware/retry.test.ts",
  "src/middleware/usage.test.ts",
  "src/middleware/summarization-agent.test.ts",
  "test/durable/interrupts.test.ts",
  "test/durable/immutable-events.test.ts",
  "src/graph/state-update.test.ts",
  "src/graph/breakpoints.test.ts",
  "test/durable/state-update.test.ts",
  "test/durable/breakpoints.test.ts",
  "test/durable/stopped-turn.test.ts",
  "src/graph/state-in-place.test.ts",
  "test/cold-harness.test.ts",
  "src/graph/check-input.test.ts",
  "src/graph/rollback-refused.test.ts",
];

/**
 * /dev/shm when it is a tmpfs with 2 GB free and TMPDIR is not set: the tests' temporary files
 * (their SQLite files above all) go there, so a checkpoint's fsync costs nothing. What a test
 * can see is the same: a killed process's writes are in the page cache either way, and no test
 * cuts the power. The model-based test's 100 seeds: 19.4-23.5 s wall on the disk, 11.0-11.7 s
 * there (alternating, load 8.5). Otherwise the system's temporary directory.
 */
function tmpfsDir(): string | undefined {
  if (process.env.TMPDIR) return undefined;
  try {
    accessSync("/dev/shm", constants.W_OK);
    const fs = statfsSync("/dev/shm");
    return fs.bavail * fs.bsize >= 2 ** 31 ? "/dev/shm" : undefined;
  } catch {
    return undefined;
  }
}
const TMPDIR = tmpfsDir();

export default defineConfig({
  resolve: { alias },
  test: {
    testTimeout: 30_000,
    // Two test files at a time. Vitest's default is the cores less one, so one worker on a
    // 2-core CI machine, and the suite ran serially while its slowest files mostly wait on
    // child processes (the CLI, examples, killed writers) and on PostgreSQL and Redis. Safe:
    // every test has its own SQLite file, schema or key prefix; a run of src/cli,
    // test/examples-*, the kill tests and the BullMQ tests with two workers at load 21-30
    // failed only by vitest's 30 s timeout, in tests that start several processes in a row,
    // which now have two minutes a test and hook (vi.setConfig in those files).
    maxWorkers: 2,
    // bin/nodestep.js (in a checkout) runs the sources under this loader instead of tsx: the
    // same esbuild transform at less start-up cost per child (test/setup/source-loader.mjs).
    env: {
      NODESTEP_SOURCE_LOADER: fileURLToPath(
        new URL("./test/setup/source-loader.mjs", import.meta.url),
      ),
      // Every PostgreSQL session of the tests (and of the processes they start, which inherit
      // the environment; pg reads PGOPTIONS) commits without waiting for the server's WAL
      // flush. What a test can see is the same: a commit is visible to every session when it
      // returns, and no test stops the server (the kill tests kill clients). It saves a flush
      // per commit, 2-5 ms on this shared disk: test/durable/snapshot-pack-adversarial.test.ts
      // took 45.6 s with the flushes and 6.4 s without (same minutes, load 6-8).
      PGOPTIONS: [process.env.PGOPTIONS, "-c synchronous_commit=off"].filter(Boolean).join(" "),
      ...(TMPDIR === undefined ? {} : { TMPDIR }),
    },
    hookTimeout: 30_000,
    // The slowest files first (test/setup/slow-first-sequencer.ts), so that the run does not
    // end on one of them with the other worker idle.
    sequence: { sequencer: SlowFirstSequencer },
    // Builds the studio's page when its sources are newer than dist/studio/.
    globalSetup: ["test/setup/studio-build.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "default",
          include: ["src/**/*.test.ts", "test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, "test/cold-harness.test.ts"],
        },
      },
      ...(["memory", "sqlite", "postgres"] as const).map((store) => ({
        extends: true as const,
        test: {
          name: store === "memory" ? "cold" : `cold-${store}`,
          include: COLD,
          setupFiles: ["test/setup/cold-mode.ts"],
          env: { NODESTEP_COLD_STORE: store },
        },
      })),
    ],
  },
});
