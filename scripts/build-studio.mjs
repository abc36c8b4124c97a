#!/usr/bin/env node
// Builds the studio's page (src/studio/ui/, Preact + Vite) into static files: dist/studio/ by
// default, `--outdir DIR` elsewhere. Run by `npm run build` (scripts/build.mjs), by the
// `prepare` script (so that `npm ci` in a checkout builds the page) and by the tests' global
// setup when the sources are newer than the build (test/setup/studio-build.ts). The server
// serves the result (src/studio/assets.ts); nothing is loaded from elsewhere at run time.
import { existsSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** The folder of the studio's sources. */
export const studioSources = join(root, "src/studio/ui");

/**
 * Build the studio into `outDir` (replaced whole): index.html, assets/*-<hash>.js|css, and
 * build.json (`{ builtAt }`, in ms since the epoch). It is built next to `outDir` first and
 * then renamed into place, so a server reading the old build (another test process) never
 * sees a half-written one.
 */
export async function buildStudio(outDir = join(root, "dist/studio")) {
  const target = outDir;
  const staging = `${target}.building-${process.pid}`;
  const old = `${target}.old-${process.pid}`;
  await buildInto(staging);
  if (existsSync(target)) renameSync(target, old);
  renameSync(staging, target);
  rmSync(old, { recursive: true, force: true });
}

async function buildInto(outDir) {
  const { build } = await import("vite");
  await build({
    configFile: false,
    root: studioSources,
    base: "/",
    logLevel: "warn",
    publicDir: false,
    oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
    build: {
      outDir,
      emptyOutDir: true,
      target: "es2022",
      sourcemap: false,
      reportCompressedSize: false,
      modulePreload: { polyfill: false },
      assetsInlineLimit: 0,
    },
  });
  writeFileSync(join(outDir, "build.json"), `${JSON.stringify({ builtAt: Date.now() })}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const i = process.argv.indexOf("--outdir");
  await buildStudio(i < 0 ? undefined : resolve(process.argv[i + 1] ?? ""));
}
