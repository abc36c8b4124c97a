/**
 * bench/import-time.ts's staged package is removed after the run, and its parent directory
 * (node_modules/.cache/nodestep-import/) with it when nothing else is left there.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { removeStaged } from "../bench/import-time.js";

const root = mkdtempSync(join(tmpdir(), "nodestep-import-stage-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** `<root>/<name>/nodestep-import/pkg-x` with a file in it, as stageCompiled leaves it. */
function staged(name: string): { cache: string; parent: string; dir: string } {
  const cache = join(root, name);
  const parent = join(cache, "nodestep-import");
  const dir = join(parent, "pkg-x");
  mkdirSync(join(dir, "dist"), { recursive: true });
  writeFileSync(join(dir, "dist", "index.js"), "export {};\n");
  return { cache, parent, dir };
}

describe("removeStaged", () => {
  it("removes the package and its parent when that is left empty, and nothing above it", () => {
    const { cache, parent } = staged("alone");
    writeFileSync(join(cache, "other-tool.json"), "{}");
    removeStaged(join(parent, "pkg-x"));
    expect(existsSync(parent)).toBe(false);
    expect(readdirSync(cache)).toEqual(["other-tool.json"]);
  });

  it("keeps the parent while another run's package is in it", () => {
    const { parent, dir } = staged("shared");
    mkdirSync(join(parent, "pkg-other"));
    removeStaged(dir);
    expect(readdirSync(parent)).toEqual(["pkg-other"]);
  });

  it("is quiet when the parent is gone already", () => {
    const { parent, dir } = staged("gone");
    rmSync(parent, { recursive: true });
    removeStaged(dir);
    expect(existsSync(parent)).toBe(false);
  });
});
