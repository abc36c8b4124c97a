/**
 * `node --import <this file> FILE.ts`: runs this checkout's TypeScript sources in a child
 * process, as `node --import tsx` does, for the tests that spawn the CLI, the examples and the
 * kill fixtures (bin/nodestep.js uses it instead of tsx when NODESTEP_SOURCE_LOADER names it;
 * vitest.config.ts sets that for the tests).
 *
 * Why not tsx: each child under tsx spent about 0.4 CPU-seconds more than under these hooks
 * (a CLI run of the refund fixture: 1.45–1.7 s under tsx, 1.05–1.15 s here; an example 1.5–1.7 s,
 * 1.1–1.2 s here) — tsx's hooks do more for every module the process loads (its own resolver,
 * CommonJS support, tsconfig lookups). The transform is the same esbuild transform, from the
 * sources as they are now (source-loader-hooks.mjs keys its cache by each file's text), so the
 * children run the real code of the checkout, never a build.
 */
import { readFileSync } from "node:fs";
import { register } from "node:module";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const tsconfig = JSON.parse(readFileSync(`${root}tsconfig.json`, "utf8"));
const paths = Object.fromEntries(
  Object.entries(tsconfig.compilerOptions.paths).map(([name, [file]]) => [
    name,
    `${root}${file.replace(/^\.\//, "")}`,
  ]),
);
// Stack traces name the TypeScript lines, as under tsx.
process.setSourceMapsEnabled(true);
register("./source-loader-hooks.mjs", import.meta.url, {
  data: { cacheDir: `${root}node_modules/.cache/nodestep-source-loader`, paths },
});
