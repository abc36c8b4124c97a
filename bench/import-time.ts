/**
 * Import time (issue 12): how long a Node.js process takes to start and import nodestep's
 * compiled modules (`nodestep`, `nodestep/sqlite`, `nodestep/openai`), against a bare start
 * (`node -e 0`), zod alone (which the root loads only on first use) and `@langchain/langgraph`. Each
 * case is its own process (`node --input-type=module -e 'await import(…)'`), timed from spawn to
 * exit; the cases alternate, `reps` rounds ({@link IMPORT_ROUNDS} by default), and the medians
 * are reported with their ratio to the bare start. The compiled modules are built first, as
 * dist/ is built but without the studio and the types (`scripts/build.mjs --js-only`, a third
 * of a second instead of 15–40), into a package of their own under node_modules/.cache/ (the
 * project's package.json, dist/, and node_modules linked to the project's), removed after;
 * nodestep is imported there through the package's own export map, as a user's project
 * imports it. With `build: false` (`--no-build`) the processes run in the project itself and
 * import its dist/ as it is.
 *
 * Run alone: `node --import tsx bench/import-time.ts [--reps N] [--no-build] [--json FILE]`,
 * or in `npm run bench` (`--only import`).
 *
 * @module
 */
import { execFileSync, spawnSync } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { median } from "./common.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** The cases, in the order printed; `null` is the bare start. */
export const IMPORT_CASES: readonly (string | null)[] = [
  null,
  "zod",
  "nodestep",
  "nodestep/sqlite",
  "nodestep/openai",
  "@langchain/langgraph",
];

/** One case's figures. */
export interface ImportTimeRow {
  /** The module imported, or `"node -e 0"` for the bare start. */
  case: string;
  /** Median wall time from spawn to exit, ms. */
  medianMs: number;
  /** Fastest run, ms. */
  minMs: number;
  /** medianMs / the bare start's medianMs. */
  ratioToBare: number;
  runs: number;
}

/**
 * Rounds of a full run: each case once a round, about 1.2 s a round on the 2-core AMD EPYC.
 * 15 until 2026-12-06 (7 s more of `npm run bench`). On a quiet machine the bare start's median
 * of 15 was within 4 ms of its minimum; under load a median of 9 follows bursts of the load
 * more than one of 15 (at load 8 the bare start's median was 203 ms over the first 9 rounds of
 * 15, 125 over the last 9, 127 over all 15): measure it on a quiet machine.
 */
export const IMPORT_ROUNDS = 9;

/** Target of issue 12: `import("nodestep")` within this many times a bare Node.js start. */
export const IMPORT_TARGET_RATIO = 1.5;

function timeOnce(spec: string | null, cwd: string): number {
  const args =
    spec === null
      ? ["-e", "0"]
      : ["--input-type=module", "-e", `await import(${JSON.stringify(spec)})`];
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd, stdio: ["ignore", "ignore", "pipe"] });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0)
    throw new Error(`import ${spec} failed: ${r.stderr.toString().slice(0, 400)}`);
  return ms;
}

/**
 * The compiled modules in a package of their own: a new directory under
 * node_modules/.cache/nodestep-import/ holding the project's package.json, the JavaScript of
 * dist/ (`scripts/build.mjs --js-only`) and a link to the project's node_modules. `remove`
 * deletes it, and nodestep-import/ too when nothing else is left in it ({@link removeStaged}).
 * @throws Error when the build fails.
 */
export function stageCompiled(): { dir: string; remove: () => void } {
  const parent = join(ROOT, "node_modules", ".cache", "nodestep-import");
  let dir: string;
  try {
    mkdirSync(parent, { recursive: true });
    dir = mkdtempSync(join(parent, "pkg-"));
  } catch (e) {
    // Another run's removeStaged may have taken the empty parent away in between: once more.
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    mkdirSync(parent, { recursive: true });
    dir = mkdtempSync(join(parent, "pkg-"));
  }
  const remove = () => removeStaged(dir);
  try {
    copyFileSync(join(ROOT, "package.json"), join(dir, "package.json"));
    symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
    execFileSync(
      process.execPath,
      [join(ROOT, "scripts/build.mjs"), "--js-only", "--outdir", join(dir, "dist")],
      { cwd: ROOT, stdio: "inherit" },
    );
    // What the timed processes import: the staged build, not the project's dist/ or src/.
    const resolved = execFileSync(
      process.execPath,
      ["--input-type=module", "-e", 'process.stdout.write(import.meta.resolve("nodestep"))'],
      { cwd: dir, encoding: "utf8" },
    );
    // (Compared by real path: node_modules may be a link, as in a git worktree sharing it.)
    if (resolved !== pathToFileURL(realpathSync(join(dir, "dist", "index.js"))).href)
      throw new Error(`import-time: "nodestep" resolves to ${resolved}, not to the staged build`);
  } catch (e) {
    remove();
    throw e;
  }
  return { dir, remove };
}

/**
 * Delete a staged package directory `dir`, then its parent directory when that is left empty
 * (another run's package in it keeps it; nothing above it is touched).
 * @throws Error when `dir` cannot be deleted, or the parent for another reason than not
 *   being empty or being gone already.
 */
export function removeStaged(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  try {
    rmdirSync(dirname(dir));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== "ENOTEMPTY" && code !== "EEXIST" && code !== "ENOENT") throw e;
  }
}

/**
 * Build the compiled modules into a package of their own ({@link stageCompiled}; with
 * `build: false`, the project's dist/ as it is), then time every case `reps` times, alternating.
 */
export function measureImportTime(
  options: { reps?: number; build?: boolean } = {},
): ImportTimeRow[] {
  const reps = options.reps ?? IMPORT_ROUNDS;
  const staged = options.build !== false ? stageCompiled() : null;
  const cwd = staged?.dir ?? ROOT;
  const times = new Map<string | null, number[]>(IMPORT_CASES.map((c) => [c, []]));
  try {
    for (const c of IMPORT_CASES) timeOnce(c, cwd); // warm the file cache once
    for (let i = 0; i < reps; i++) {
      for (const c of IMPORT_CASES) times.get(c)!.push(timeOnce(c, cwd));
    }
  } finally {
    staged?.remove();
  }
  const bare = median(times.get(null)!);
  return IMPORT_CASES.map((c) => {
    const t = times.get(c)!;
    const m = median(t);
    return {
      case: c === null ? "node -e 0" : c,
      medianMs: m,
      minMs: Math.min(...t),
      ratioToBare: m / bare,
      runs: t.length,
    };
  });
}

/** The figures as a table, and whether the target holds. */
export function importTimeReport(rows: readonly ImportTimeRow[]): string {
  const header = ["import", "median ms", "min ms", "× bare node"];
  const cells = rows.map((r) => [
    r.case === "node -e 0" ? r.case : `import("${r.case}")`,
    r.medianMs.toFixed(1),
    r.minMs.toFixed(1),
    `${r.ratioToBare.toFixed(2)}×`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => `| ${c.map((x, i) => x.padEnd(widths[i]!)).join(" | ")} |`;
  const ns = rows.find((r) => r.case === "nodestep");
  const lg = rows.find((r) => r.case === "@langchain/langgraph");
  const target = ns
    ? `import("nodestep") within ${IMPORT_TARGET_RATIO}× of a bare start: ${ns.ratioToBare <= IMPORT_TARGET_RATIO ? "yes" : "NO"} (${ns.ratioToBare.toFixed(2)}×${lg ? `; LangGraph.js ${lg.ratioToBare.toFixed(2)}×` : ""})`
    : "";
  return [
    line(header),
    `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`,
    ...cells.map(line),
    "",
    target,
  ].join("\n");
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const argv = process.argv.slice(2);
  const at = (flag: string) => {
    const i = argv.indexOf(flag);
    return i < 0 ? undefined : argv[i + 1];
  };
  const reps = Number(at("--reps") ?? IMPORT_ROUNDS);
  if (!Number.isInteger(reps) || reps < 1) throw new Error("--reps needs a whole number ≥ 1");
  const rows = measureImportTime({ reps, build: !argv.includes("--no-build") });
  console.log(`Import time, ${reps} runs per case, medians\n`);
  console.log(importTimeReport(rows));
  const json = at("--json");
  if (json) writeFileSync(json, `${JSON.stringify(rows, null, 2)}\n`);
}
