/**
 * The package as npm delivers it: build into a staging copy, `npm pack`, install the tarball
 * into a new project with zod and typescript (from npm's cache when it has them), then use it
 * as a newcomer does: type-check the README's first agent under NodeNext and under Bundler
 * with `strict`, run it with node, `require()` it from CommonJS, type-check and run
 * docs/getting-started.md's programs, run `npx nodestep`, and check
 * that `import("nodestep")` loads nothing heavy (not even zod). A second project with zod 3
 * gets the error that says nodestep needs zod 4 at its first use of a schema.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  version: string;
  exports: Record<string, string | { types: string; default: string }>;
  devDependencies: Record<string, string>;
};
const stage = mkdtempSync(join(tmpdir(), "nodestep-pack-"));
const app = join(stage, "app");
const zod3App = join(stage, "app-zod3");
const tarball = join(stage, `nodestep-${pkg.version}.tgz`);

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

function run(
  command: string,
  args: string[],
  cwd: string,
  timeout = 120_000,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Result> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, timeout, env, maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      const code = error ? Number((error as { code?: unknown }).code ?? 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

async function ok(
  command: string,
  args: string[],
  cwd: string,
  timeout = 120_000,
): Promise<string> {
  const r = await run(command, args, cwd, timeout);
  if (r.code !== 0) {
    throw new Error(`${command} ${args.join(" ")} exited ${r.code}:\n${r.stdout}\n${r.stderr}`);
  }
  return r.stdout;
}

/** `npm install` into a new project, from the cache when npm has the packages. */
async function newProject(dir: string, packages: string[], extra: string[] = []): Promise<void> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module" }),
  );
  await ok(
    "npm",
    ["install", "--prefer-offline", "--no-audit", "--no-fund", ...extra, tarball, ...packages],
    dir,
  );
}

/** The programs of docs/getting-started.md (examples/getting-started/). */
const GETTING_STARTED = [
  "graph",
  "agent",
  "real-model",
  "thread",
  "continue",
  "approval",
  "tokens",
] as const;

/** What docs/getting-started.md says a program prints: the `text` block after its `ts` block. */
function gettingStartedOutput(name: string): string {
  const doc = readFileSync(join(root, "docs/getting-started.md"), "utf8");
  const program = readFileSync(join(root, `examples/getting-started/${name}.ts`), "utf8");
  const shown = `\`\`\`ts\n${program}\`\`\`\n\n\`\`\`text\n`;
  const at = doc.indexOf(shown);
  if (at < 0) throw new Error(`docs/getting-started.md does not show ${name}.ts and its output`);
  const start = at + shown.length;
  return doc.slice(start, doc.indexOf("```", start));
}

/** The README's first `ts` block under "A first agent". */
function readmeAgent(): string {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## A first agent"));
  const block = /```ts\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error('README.md has no ts block under "A first agent"');
  return block[1]!;
}

const tsconfig = (options: Record<string, unknown>) =>
  JSON.stringify({
    compilerOptions: { target: "ES2022", strict: true, types: [], ...options },
    files: ["agent.ts"],
  });

/**
 * A `node_modules` in a folder above the staging directory (`/tmp/node_modules`, say) would
 * make packages the test projects do not install resolvable, and the tests of what happens
 * without them fail for a reason they do not name: say so instead.
 */
function checkNoNodeModulesAbove(dir: string): void {
  for (let d = dirname(dir); ; d = dirname(d)) {
    const found = join(d, "node_modules");
    if (existsSync(found)) {
      throw new Error(
        `packaging tests: ${found} exists, so the test projects under ${dir} would resolve packages they do not install; remove it (or set TMPDIR to a folder with no node_modules above it)`,
      );
    }
    if (dirname(d) === d) return;
  }
}

beforeAll(async () => {
  checkNoNodeModulesAbove(stage);
  // Build into a staging copy (never the checkout's dist/, which may hold stale files).
  const staged = join(stage, "pkg");
  mkdirSync(staged);
  for (const f of ["package.json", "README.md", "LICENSE", "bin"]) {
    cpSync(join(root, f), join(staged, f), { recursive: true });
  }
  await ok(
    process.execPath,
    [join(root, "scripts/build.mjs"), "--outdir", join(staged, "dist")],
    root,
    // The build (tsc, the bundle and the studio's Vite build) takes 40 s on a quiet 2-core
    // machine, several times that when the machine is loaded.
    240_000,
  );
  // --ignore-scripts: the staged copy has no scripts/ for `prepare` (the build above made dist/).
  await ok("npm", ["pack", "--silent", "--ignore-scripts", "--pack-destination", stage], staged);
  const zod = pkg.devDependencies.zod!;
  const typescript = pkg.devDependencies.typescript!;
  await Promise.all([
    newProject(app, [`zod@${zod}`, `typescript@${typescript}`]),
    // zod 3 does not meet the peer range: npm refuses it unless told to ignore peers.
    newProject(zod3App, ["zod@3"], ["--legacy-peer-deps"]),
  ]);
  writeFileSync(join(app, "agent.ts"), readmeAgent());
  writeFileSync(
    join(app, "tsconfig.nodenext.json"),
    tsconfig({ module: "NodeNext", moduleResolution: "NodeNext", outDir: "out" }),
  );
  writeFileSync(
    join(app, "tsconfig.bundler.json"),
    tsconfig({ module: "ESNext", moduleResolution: "Bundler", noEmit: true }),
  );
  // docs/getting-started.md's programs, as a newcomer saves them next to their package.json.
  mkdirSync(join(app, "getting-started"));
  for (const name of GETTING_STARTED) {
    cpSync(
      join(root, `examples/getting-started/${name}.ts`),
      join(app, `getting-started/${name}.ts`),
    );
  }
  writeFileSync(
    join(app, "tsconfig.getting-started.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        strict: true,
        types: [],
        module: "NodeNext",
        moduleResolution: "NodeNext",
        outDir: "out-getting-started",
      },
      files: GETTING_STARTED.map((name) => `getting-started/${name}.ts`),
    }),
  );
  writeFileSync(
    join(app, "postgres.ts"),
    [
      'import { PostgresMemoryStore, type PostgresPool, PostgresStateStore } from "nodestep/postgres";',
      'export const store = new PostgresStateStore({ connectionString: "postgres://127.0.0.1/app" });',
      "export const memory = (pool: PostgresPool) => new PostgresMemoryStore({ pool });",
      'import { type SqliteDatabase, SqliteMemoryStore, SqliteStateStore } from "nodestep/sqlite";',
      'export const sqlite = new SqliteStateStore({ path: "app.db" });',
      "export const sqliteMemory = (database: SqliteDatabase) => new SqliteMemoryStore({ database });",
      "",
    ].join("\n"),
  );
  writeFileSync(
    join(app, "tsconfig.postgres.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        strict: true,
        types: [],
        module: "NodeNext",
        moduleResolution: "NodeNext",
        noEmit: true,
      },
      files: ["postgres.ts"],
    }),
  );
}, 480_000);

let server: ChildProcess | undefined;
afterAll(() => {
  // A serve left running by a failed test: its process group (npx, sh, node).
  if (server?.pid !== undefined) {
    try {
      process.kill(-server.pid, "SIGKILL");
    } catch {}
  }
  rmSync(stage, { recursive: true, force: true, maxRetries: 3 });
});

/** Each test starts processes (tsc, npx), slow on a busy machine. */
const SLOW = 180_000;

describe("the packed package", () => {
  it(
    "ships dist, bin, LICENSE and README: no sources, no source maps, every export target",
    async () => {
      const files = (await ok("tar", ["tzf", tarball], stage))
        .trim()
        .split("\n")
        .map((f) => f.replace(/^package\//, ""));
      expect(files.filter((f) => !f.startsWith("dist/")).sort()).toEqual([
        "LICENSE",
        "README.md",
        "bin/nodestep.js",
        "package.json",
      ]);
      expect(files.filter((f) => f.endsWith(".map") || f.includes(".test."))).toEqual([]);
      const targets = Object.values(pkg.exports).flatMap((t) =>
        typeof t === "string" ? [t] : Object.values(t),
      );
      const missing = targets.map((t) => t.replace(/^\.\//, "")).filter((t) => !files.includes(t));
      expect(missing).toEqual([]);
    },
    SLOW,
  );

  it(
    "type-checks the README's first agent under NodeNext and Bundler with strict",
    async () => {
      const tsc = join(app, "node_modules/typescript/bin/tsc");
      const [nodeNext, bundler] = await Promise.all([
        run(process.execPath, [tsc, "-p", "tsconfig.nodenext.json"], app),
        run(process.execPath, [tsc, "-p", "tsconfig.bundler.json"], app),
      ]);
      expect(nodeNext).toEqual({ code: 0, stdout: "", stderr: "" });
      expect(bundler).toEqual({ code: 0, stdout: "", stderr: "" });
      // The NodeNext build runs with plain node.
      expect(await run(process.execPath, ["out/agent.js"], app)).toEqual({
        code: 0,
        stdout: "Order A-1001 has shipped.\n",
        stderr: "",
      });
    },
    SLOW,
  );

  it(
    "type-checks docs/getting-started.md's programs under NodeNext with strict, and runs those that need no driver",
    async () => {
      const tsc = join(app, "node_modules/typescript/bin/tsc");
      expect(
        await run(process.execPath, [tsc, "-p", "tsconfig.getting-started.json"], app),
      ).toEqual({ code: 0, stdout: "", stderr: "" });
      // thread.ts and continue.ts need better-sqlite3, real-model.ts openai (and a server):
      // test/examples-getting-started.test.ts runs them on the sources.
      for (const name of ["graph", "agent", "approval", "tokens"]) {
        expect(await run(process.execPath, [`out-getting-started/${name}.js`], app), name).toEqual({
          code: 0,
          stdout: gettingStartedOutput(name),
          stderr: "",
        });
      }
    },
    SLOW,
  );

  it(
    "type-checks nodestep/postgres and nodestep/sqlite under strict without pg, better-sqlite3 or their types",
    async () => {
      // pg and better-sqlite3 are optional peers: the new project has neither them nor their types.
      expect(existsSync(join(app, "node_modules/pg"))).toBe(false);
      expect(existsSync(join(app, "node_modules/@types/pg"))).toBe(false);
      expect(existsSync(join(app, "node_modules/better-sqlite3"))).toBe(false);
      expect(existsSync(join(app, "node_modules/@types/better-sqlite3"))).toBe(false);
      const tsc = join(app, "node_modules/typescript/bin/tsc");
      expect(await run(process.execPath, [tsc, "-p", "tsconfig.postgres.json"], app)).toEqual({
        code: 0,
        stdout: "",
        stderr: "",
      });
    },
    SLOW,
  );

  it(
    "runs from CommonJS with require()",
    async () => {
      const cjs = readmeAgent()
        .replace('import { z } from "zod";', 'const { z } = require("zod");')
        .replace(
          'import { ScriptedChat, buildReactAgent, runAgent, tool } from "nodestep";',
          'const { ScriptedChat, buildReactAgent, runAgent, tool } = require("nodestep");',
        )
        .replace(
          /console\.log\(await (.*)\); \/\/.*$/m,
          "$1.then((answer) => console.log(answer));",
        );
      expect(cjs).not.toContain("import ");
      writeFileSync(join(app, "agent.cjs"), cjs);
      expect(await run(process.execPath, ["agent.cjs"], app)).toEqual({
        code: 0,
        stdout: "Order A-1001 has shipped.\n",
        stderr: "",
      });
    },
    SLOW,
  );

  it(
    "loads no HTTP server, OpenTelemetry, CLI, zod or node:crypto on import('nodestep')",
    async () => {
      // Node 20's module hooks list every module the import resolves.
      writeFileSync(
        join(app, "hooks.mjs"),
        [
          'import { writeSync } from "node:fs";',
          "export async function resolve(s, c, next) {",
          "  const r = await next(s, c);",
          '  writeSync(2, "R " + r.url + "\\n");',
          "  return r;",
          "}",
          "",
        ].join("\n"),
      );
      writeFileSync(
        join(app, "register.mjs"),
        'import { register } from "node:module";\nregister("./hooks.mjs", import.meta.url);\n',
      );
      const r = await run(
        process.execPath,
        ["--import", "./register.mjs", "--input-type=module", "-e", 'await import("nodestep")'],
        app,
      );
      expect(r.code).toBe(0);
      const packages = new Set(
        r.stderr
          .split("\n")
          .map((l) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(l)?.[1])
          .filter((p) => p !== undefined),
      );
      expect([...packages].sort()).toEqual(["nodestep"]);
      const builtins = r.stderr
        .split("\n")
        .filter((l) => l.startsWith("R node:"))
        .map((l) => l.slice(2));
      expect([...new Set(builtins)].sort()).toEqual(["node:fs/promises", "node:path", "node:url"]);
      const own = r.stderr
        .split("\n")
        .filter((l) => l.includes("node_modules/nodestep/"))
        .map((l) => l.replace(/.*node_modules\/nodestep\//, ""));
      expect(own.filter((f) => /^dist\/(server|cli|studio|integrations)\//.test(f))).toEqual([]);
      // dist/ is bundled (scripts/build.mjs): the root entry and the chunks it shares with other
      // entries, a few files instead of one per module; not the chunks split off at a dynamic
      // import (operations-*.js, the engine; the SDK adapters), nor another subpath's entry.
      const files = [...new Set(own)];
      expect(files[0]).toBe("dist/index.js");
      expect(files.slice(1).filter((f) => !/^dist\/chunks\/chunk-[A-Z0-9]+\.js$/.test(f))).toEqual(
        [],
      );
      expect(files.length).toBeLessThanOrEqual(20);
    },
    SLOW,
  );

  it(
    "npx nodestep: --version, and a TypeScript module without tsx says how to run it (exit 2)",
    async () => {
      expect(await run("npx", ["--no-install", "nodestep", "--version"], app)).toEqual({
        code: 0,
        stdout: `${pkg.version}\n`,
        stderr: "",
      });
      writeFileSync(join(app, "graph.ts"), "export const graph: number = 1;\n");
      expect(
        await run("npx", ["--no-install", "nodestep", "run", "./graph.ts#graph", "-m", "hi"], app),
      ).toEqual({
        code: 2,
        stdout: "",
        stderr:
          "nodestep: ./graph.ts is TypeScript and this Node.js cannot load it by itself: install tsx (npm install --save-dev tsx), which nodestep then uses, or build the module and give the .js file\n",
      });
    },
    SLOW,
  );

  it(
    "npx nodestep on the default store without better-sqlite3 says what to install (exit 1)",
    async () => {
      const line = (spec: string, pkgName: string, install: string) =>
        `nodestep: --store ${spec} needs the package ${pkgName}, which is not installed: run \`npm install ${install}\`, or pick another store with --store (memory, sqlite:FILE or a postgres:// connection string)\n`;
      expect(await run("npx", ["--no-install", "nodestep", "threads"], app)).toEqual({
        code: 1,
        stdout: "",
        stderr: line("sqlite:.nodestep/nodestep.db", "better-sqlite3", "better-sqlite3@12"),
      });
      expect(
        await run(
          "npx",
          ["--no-install", "nodestep", "threads", "--store", "postgres://app:secret@127.0.0.1/db"],
          app,
        ),
      ).toEqual({
        code: 1,
        stdout: "",
        stderr: line("postgres://app:***@127.0.0.1/db", "pg", "pg"),
      });
    },
    SLOW,
  );

  it(
    "npx nodestep serve stops when npx gets SIGTERM",
    async () => {
      writeFileSync(
        join(app, "count.mjs"),
        [
          'import { z } from "zod";',
          'import { END, Graph, START, defineState, node } from "nodestep";',
          "const State = defineState({ n: z.number().default(0) });",
          'const inc = node((s) => ({ n: s.n + 1 }), { name: "inc" });',
          "export const build = ({ stateStore }) =>",
          '  new Graph(State, { name: "count", stateStore }).flow(START.to(inc), inc.to(END));',
          "",
        ].join("\n"),
      );
      const npx: ChildProcess = spawn(
        "npx",
        [
          "--no-install",
          "nodestep",
          "serve",
          "./count.mjs#build",
          "--store",
          "memory",
          "--port",
          "0",
        ],
        { cwd: app, stdio: ["ignore", "pipe", "pipe"], detached: true },
      );
      server = npx;
      let out = "";
      const url = await new Promise<string>((resolve, reject) => {
        npx.stdout!.on("data", (d: Buffer) => {
          out += d.toString();
          const m = /studio for graph "count": (http:\/\/127\.0\.0\.1:\d+)\//.exec(out);
          if (m) resolve(m[1]!);
        });
        npx.on("exit", () => reject(new Error(`npx exited: ${out}`)));
      });
      expect((await fetch(`${url}/health`)).status).toBe(200);
      // The studio's page and its assets come from the package's dist/studio/.
      const page = await fetch(`${url}/`);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain("<title>count · nodestep studio</title>");
      const script = /src="(\/assets\/index-[\w-]+\.js)"/.exec(html)?.[1];
      expect(script).toBeDefined();
      const js = await fetch(`${url}${script}`);
      expect([js.status, js.headers.get("content-type")]).toEqual([
        200,
        "text/javascript; charset=utf-8",
      ]);
      npx.kill("SIGTERM");
      // The server notices within a second or so (npm exec does not pass SIGTERM on).
      let answering = true;
      for (let i = 0; i < 100 && answering; i++) {
        await new Promise((r) => setTimeout(r, 100));
        answering = await fetch(`${url}/health`).then(
          () => true,
          () => false,
        );
      }
      expect(answering).toBe(false);
    },
    SLOW,
  );

  it(
    "with zod 3 installed, the first schema given to nodestep says it needs zod 4",
    async () => {
      const r = await run(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          'const { z } = await import("zod"); const { defineState } = await import("nodestep"); console.log("imported"); defineState({ topic: z.string() });',
        ],
        zod3App,
      );
      expect(r.stdout).toBe("imported\n");
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        'Error: nodestep needs zod 4 (^4.5.0), but the installed "zod" is zod 3 or older: install zod 4 with npm install zod@^4.5.0',
      );
    },
    SLOW,
  );
});
