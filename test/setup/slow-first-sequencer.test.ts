/**
 * The test files' order (slow-first-sequencer.ts): the listed slow files first, then vitest's.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { TestSpecification, Vitest } from "vitest/node";
import { SLOW_FIRST, SlowFirstSequencer } from "./slow-first-sequencer.js";

const root = "/repo";

/** A test file of `project` at `path` (what the sequencer reads of one). */
function spec(project: string, path: string): TestSpecification {
  return {
    moduleId: join(root, path),
    project: { name: project, config: { sequence: { groupOrder: 0 }, isolate: true } },
  } as unknown as TestSpecification;
}

/** A sequencer whose cache knows each file's size (bytes) and, when given, its last duration. */
function sequencer(sizes: Record<string, number>, durations: Record<string, number> = {}) {
  const ctx = {
    config: { root },
    cache: {
      getFileTestResults: (key: string) =>
        key in durations ? { failed: false, duration: durations[key] } : undefined,
      getFileStats: (key: string) => (key in sizes ? { size: sizes[key] } : undefined),
    },
  };
  return new SlowFirstSequencer(ctx as unknown as Vitest);
}

const names = (files: TestSpecification[]) =>
  files.map((f) => `${f.project.name}:${f.moduleId.slice(root.length + 1)}`);

describe("SlowFirstSequencer", () => {
  it("starts the listed files first, in the list's order, whatever their project and size; then vitest's order", async () => {
    const files = [
      spec("cold", "src/graph/graph.test.ts"),
      spec("default", "src/graph/graph.test.ts"),
      spec("default", "src/cli/cli.test.ts"),
      spec("default", "test/big.test.ts"),
      spec("default", "test/durable/model-based.test.ts"),
      spec("default", "test/packaging.test.ts"),
    ];
    const sizes = {
      "cold:src/graph/graph.test.ts": 500,
      "default:src/graph/graph.test.ts": 500,
      "default:src/cli/cli.test.ts": 9_000,
      "default:test/big.test.ts": 90_000,
      "default:test/durable/model-based.test.ts": 4_000,
      "default:test/packaging.test.ts": 17_000,
    };
    expect(names(await sequencer(sizes).sort(files))).toEqual([
      "default:test/packaging.test.ts",
      "default:test/durable/model-based.test.ts",
      "default:src/cli/cli.test.ts",
      "cold:src/graph/graph.test.ts",
      "default:test/big.test.ts",
      "default:src/graph/graph.test.ts",
    ]);
  });

  it("puts the listed files before files that took longer in the last run (vitest's cache)", async () => {
    const files = [spec("default", "test/other.test.ts"), spec("default", "src/cli/cli.test.ts")];
    const durations = { "default:test/other.test.ts": 90_000, "default:src/cli/cli.test.ts": 1 };
    expect(names(await sequencer({}, durations).sort(files))).toEqual([
      "default:src/cli/cli.test.ts",
      "default:test/other.test.ts",
    ]);
  });

  it("lists each file once, and only files there are", () => {
    expect(new Set(SLOW_FIRST).size).toBe(SLOW_FIRST.length);
    const checkout = fileURLToPath(new URL("../..", import.meta.url));
    expect(SLOW_FIRST.filter((f) => !existsSync(join(checkout, f)))).toEqual([]);
  });
});
