/**
 * The order of the test files: the slowest first, then vitest's own order. Two workers share
 * the 380-odd files; vitest starts the files of an unknown duration (every file in CI, whose
 * `npm ci` starts without vitest's results cache) largest first, project by project, so a
 * small file of half a minute (the model-based test, 82 lines) started near the end and the
 * run ended on it while the other worker had nothing left. Started first, such a file runs
 * beside the many short ones and the run's tail is a short file.
 *
 * @module
 */
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The files that took the longest in a full run on the 2-core CI machine (10–50 s each; the
 * CI run of 2026-12-06 and a run at load 9 the same evening), slowest first. A file of
 * another project (the `cold*` projects) with the same path is put first too.
 */
export const SLOW_FIRST: readonly string[] = [
  "test/packaging.test.ts",
  "test/durable/model-based.test.ts",
  "test/durable/model-kill.test.ts",
  "test/durable/cold-load.test.ts",
  "test/durable/log-codec-adversarial.test.ts",
  "test/examples-graph-semantics.test.ts",
  "test/examples-core.test.ts",
  "test/examples-runs-on-workers.test.ts",
  "test/examples.test.ts",
  "src/integrations/bullmq/workers.test.ts",
  "test/examples-multi-agent.test.ts",
  "test/durable/durability-kill.test.ts",
  "src/cli/cli.test.ts",
];

/** vitest's order (`BaseSequencer`), with the files of {@link SLOW_FIRST} moved to its front. */
export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    const rank = (file: TestSpecification) => {
      const i = SLOW_FIRST.indexOf(relative(root, file.moduleId));
      return i === -1 ? SLOW_FIRST.length : i;
    };
    return sorted
      .map((file, i) => ({ file, i, rank: rank(file) }))
      .sort((a, b) => a.rank - b.rank || a.i - b.i)
      .map(({ file }) => file);
  }
}
