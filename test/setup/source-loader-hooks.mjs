/**
 * Module hooks of test/setup/source-loader.mjs (which says why): a TypeScript module loads as
 * the JavaScript esbuild makes of it — the transform tsx applies — read from a cache keyed by the
 * module's path and text, so a changed source is compiled again and an unchanged one is not;
 * `nodestep` and its subpaths resolve through tsconfig.json's `paths`; `./x.js` written in a
 * TypeScript module names `./x.ts` when there is no x.js, as for tsc and tsx.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const TS = /\.[cm]?ts$/;
let cacheDir = "";
/** @type {Map<string, string>} */
let paths = new Map();

/** @param {{ cacheDir: string, paths: Record<string, string> }} data */
export function initialize(data) {
  cacheDir = data.cacheDir;
  paths = new Map(
    Object.entries(data.paths).map(([name, file]) => [name, pathToFileURL(file).href]),
  );
  mkdirSync(cacheDir, { recursive: true });
}

export async function resolve(specifier, context, next) {
  const mapped = paths.get(specifier);
  if (mapped !== undefined) return { url: mapped, format: "module", shortCircuit: true };
  try {
    return await next(specifier, context);
  } catch (e) {
    const parent = (context.parentURL ?? "").replace(/[?#].*$/, "");
    if (e?.code === "ERR_MODULE_NOT_FOUND" && /\.[cm]?js$/.test(specifier) && TS.test(parent)) {
      return next(specifier.replace(/js$/, "ts"), context);
    }
    throw e;
  }
}

/** The esbuild transform options of a file (part of the cache key). */
function options(path) {
  return {
    loader: "ts",
    format: path.endsWith(".cts") ? "cjs" : "esm",
    target: "node20",
    sourcemap: "inline",
    sourcefile: path,
    keepNames: true,
    tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true, target: "ES2022" } },
  };
}

let esbuild;
export async function load(url, context, next) {
  const file = url.replace(/[?#].*$/, "");
  if (!file.startsWith("file:") || !TS.test(file)) return next(url, context);
  const path = fileURLToPath(file);
  const source = readFileSync(path, "utf8");
  const opts = options(path);
  const key = createHash("sha1")
    .update(JSON.stringify(opts))
    .update("\0")
    .update(source)
    .digest("hex");
  const out = join(cacheDir, `${key}.js`);
  let code;
  try {
    code = readFileSync(out, "utf8");
  } catch {
    esbuild ??= await import("esbuild");
    code = esbuild.transformSync(source, opts).code;
    // Written whole, then renamed: a process reading the cache never sees half a file.
    const tmp = `${out}.${process.pid}.${Math.random().toString(36).slice(2)}`;
    writeFileSync(tmp, code);
    renameSync(tmp, out);
  }
  return {
    format: opts.format === "cjs" ? "commonjs" : "module",
    source: code,
    shortCircuit: true,
  };
}
