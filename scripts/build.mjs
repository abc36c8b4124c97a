#!/usr/bin/env node
// Builds the published dist/ (`npm run build`; `node scripts/build.mjs --outdir DIR` builds
// into DIR instead). See docs/architecture.md, "How dist/ is built".
//
// - JavaScript: esbuild bundles src/ with code splitting, one entry per subpath of
//   package.json's export map (written at the path the map names, dist/<path>.js) and
//   dist/cli/main.js (which bin/nodestep.js runs). Code that several entries share, and every
//   dynamic import (the engine's operations, loaded on a graph's first run), goes into
//   dist/chunks/, so each class exists once however many subpaths a program imports. An ES
//   module costs Node.js about half a millisecond per file to load: a subpath is a few files
//   instead of dozens. Every package (zod, the SDKs, hono, …) stays an import, resolved by
//   the application as before. Class and function names are kept (errors are matched by
//   class name).
// - The studio: Vite builds src/studio/ui/ (Preact) into <outdir>/studio/ (scripts/build-studio.mjs).
// - Types: tsc emits the .d.ts files (tsconfig.build.json, declarations only), next to them,
//   with the same layout as src/.
// `--js-only` builds the JavaScript alone (a third of a second, against 15–40 s with the studio
// and the types): bench/import-time.ts times imports of it.
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { buildStudio } from "./build-studio.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));

/** The `--outdir DIR` argument, or dist/. */
function outDir(argv) {
  const i = argv.indexOf("--outdir");
  if (i < 0) return join(root, "dist");
  const dir = argv[i + 1];
  if (!dir) throw new Error("build: --outdir needs a directory");
  return resolve(dir);
}

/** One entry per export-map target under dist/: { in: "src/<path>.ts", out: "<path>" }. */
function entryPoints(pkg) {
  const entries = [{ in: "src/cli/main.ts", out: "cli/main" }];
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    const file = typeof target === "string" ? target : target.default;
    const m = /^\.\/dist\/(.+)\.js$/.exec(file);
    if (!m) {
      if (subpath === "./package.json") continue;
      throw new Error(`build: export ${subpath} points at ${file}, not at ./dist/<path>.js`);
    }
    entries.push({ in: `src/${m[1]}.ts`, out: m[1] });
  }
  return entries;
}

const out = outDir(process.argv.slice(2));
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
rmSync(out, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: entryPoints(pkg),
  outdir: out,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20.19",
  packages: "external",
  keepNames: true,
  chunkNames: "chunks/[name]-[hash]",
  tsconfig: join(root, "tsconfig.build.json"),
  sourcemap: false,
  logLevel: "warning",
});
if (!process.argv.includes("--js-only")) {
  await buildStudio(join(out, "studio"));
  execFileSync(
    process.execPath,
    [
      join(root, "node_modules/typescript/bin/tsc"),
      "-p",
      "tsconfig.build.json",
      "--emitDeclarationOnly",
      "--outDir",
      out,
    ],
    { cwd: root, stdio: "inherit" },
  );
}
