/**
 * The benchmark's child processes run compiled JavaScript, as an application does, not the
 * sources under tsx: `npm run bench` bundles bench/worker.ts once (esbuild, the same transform
 * tsx applies; nodestep from src/ through tsconfig.json's `paths`, as under tsx; every package —
 * LangGraph.js, zod, pg, better-sqlite3 — an import of node_modules, as before) into a fresh
 * directory under node_modules/.cache/, and each child runs `node <dir>/worker.js …`.
 *
 * Why: tsx registers its module hooks on a thread of their own (Node.js runs `module.register`
 * hooks off the main thread), a second V8 isolate that compiles and resolves every module the
 * process loads. It added 35–55 MB to every child's peak RSS (a loop of 1,000 steps: 135–140 MB
 * under tsx, 81 MB compiled; bare `node` 39 MB), which is the harness's own memory, not the
 * workload's. The figure stays the whole process's peak RSS (`maxRSS`), warm-up included.
 *
 * One difference in behaviour: zod. Under tsx, bench/zod-shared.ts makes nodestep's lazily
 * required zod the application's instance; compiled, Node.js does that itself (nodestep
 * `require`s zod's ES module, which is the instance `import "zod"` has), and the bundler drops
 * the import of zod-shared.ts (the package has `"sideEffects": false`): the one zod is checked
 * by opening files (only zod/index.js, never zod/index.cjs, is loaded).
 *
 * @module
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** A compiled worker: the path of its entry and a function that removes its directory. */
export interface BuiltWorker {
  /** Absolute path of the compiled bench/worker.ts. */
  entry: string;
  /** Remove the directory the build wrote. */
  remove: () => void;
}

/**
 * Bundle bench/worker.ts (and what it imports dynamically, as chunks) into a fresh directory
 * under node_modules/.cache/nodestep-bench/ (inside the project, so that its imports of
 * packages resolve to the project's node_modules).
 * @throws Error from esbuild when the sources do not compile.
 */
export async function buildWorker(): Promise<BuiltWorker> {
  const { build } = await import("esbuild");
  const parent = join(ROOT, "node_modules", ".cache", "nodestep-bench");
  mkdirSync(parent, { recursive: true });
  const dir = mkdtempSync(join(parent, "worker-"));
  await build({
    absWorkingDir: ROOT,
    entryPoints: ["bench/worker.ts"],
    outdir: dir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    tsconfig: join(ROOT, "tsconfig.json"),
    // Error classes are told apart by name, as in dist/ (scripts/build.mjs).
    keepNames: true,
    logLevel: "error",
  });
  return {
    entry: join(dir, "worker.js"),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
