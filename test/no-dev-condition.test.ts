/**
 * The export map has no `development` condition (it pointed at src/*.ts, which the tarball
 * does not ship): sources resolve through tsconfig.json's `paths`, which vitest and tsx read.
 * So no child process is started with the `development` condition (it would resolve nothing
 * more), and no comment tells a reader to.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === "node_modules" ? [] : files(p);
    return /\.(ts|mts|mjs|js)$/.test(e.name) ? [p] : [];
  });
}

it("no test, source, bench or example passes the development condition to node", () => {
  const flag = ["--conditions", "development"].join("=");
  const found = ["test", "src", "bench", "examples"]
    .flatMap((d) => files(join(root, d)))
    .filter((f) => readFileSync(f, "utf8").includes(flag))
    .map((f) => relative(root, f));
  expect(found).toEqual([]);
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    exports: Record<string, unknown>;
  };
  expect(JSON.stringify(pkg.exports)).not.toContain("development");
});
