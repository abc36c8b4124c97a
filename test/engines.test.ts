/**
 * package.json `engines` is what nodestep needs: `require(esm)` (Node.js 20.19+ / 22.12+),
 * which CommonJS consumers use to load the package and nodestep uses to load zod on first
 * use (src/zod-runtime.ts), and `process.getBuiltinModule` (20.16+ / 22.3+). README's
 * install section says the same versions.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  engines: { node: string };
};
const dir = mkdtempSync(join(tmpdir(), "nodestep-engines-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("engines is ^20.19.0 || >=22.12.0, and README's install section says so", () => {
  expect(pkg.engines).toEqual({ node: "^20.19.0 || >=22.12.0" });
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const install = readme.slice(
    readme.indexOf("## Install"),
    readme.indexOf("\n## ", readme.indexOf("## Install") + 1),
  );
  expect(install).toContain(
    "Node.js 20.19+ or 22.12+ (package.json `engines`: `^20.19.0 || >=22.12.0`)",
  );
});

it("the Node.js running the tests has what engines promises: require(esm), getBuiltinModule", () => {
  const [major, minor] = process.versions.node.split(".").map(Number) as [number, number];
  expect(major === 20 ? minor >= 19 : major >= 22 && (major > 22 || minor >= 12)).toBe(true);
  const file = join(dir, "esm.mjs");
  writeFileSync(file, "export const answer = 42;\n");
  expect(createRequire(import.meta.url)(file)).toMatchObject({ answer: 42 });
  expect(process.getBuiltinModule("node:path").sep).toBe("/");
});
