import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

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

// The `cold` project runs the suites of threads, interrupts, approvals, subgraphs and
// sub-agents again with the cold test mode on (src/graph/cold-mode.ts): every call folds its
// thread from the store, as a new graph object would (issue 13). `--project default` skips it.
const COLD = [
  "src/graph/graph.test.ts",
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
];

export default defineConfig({
  resolve: { alias },
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: { name: "default", include: ["src/**/*.test.ts", "test/**/*.test.ts"] },
      },
      {
        extends: true,
        test: { name: "cold", include: COLD, setupFiles: ["test/setup/cold-mode.ts"] },
      },
    ],
  },
});
