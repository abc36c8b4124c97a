/**
 * The SIGKILL way of the model-based test (issue 13, item 3): a random graph of
 * model-graphs.ts (time-outs included) runs on a SQLite file or a PostgreSQL schema in a child
 * process that kills itself with SIGKILL at a random moment of the run; a new process continues
 * the thread with `invoke(null)` and answers the rest. The end state must equal the
 * uninterrupted run's in memory, each answer in the log of the task that asked, no task
 * finished twice in the log, and (SQLite) the file intact.
 *
 * A failure names its seed and store. Replay one: `NODESTEP_KILL_SEED=3 npx vitest run --project default test/durable/model-kill.test.ts`;
 * more seeds: `NODESTEP_KILL_SEEDS=50` in its place (two processes a seed and store, about 2 s).
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { expect, it } from "vitest";
import { PostgresStateStore } from "../../src/integrations/postgres/index.js";
import { SqliteStateStore } from "../../src/integrations/sqlite/index.js";
import { MemoryStateStore } from "../../src/stores/index.js";
import type { StateStore } from "../../src/stores/types.js";
import { SOURCE_LOADER } from "../source-loader.js";
import { build, checkAnswers, drive, plan, rng, type S, type Seen } from "./model-graphs.js";
import { newSchema, newSqlitePath, PG_URL } from "./stores.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const fixture = fileURLToPath(new URL("./fixtures/model-child.ts", import.meta.url));

/** Run the fixture; its exit and what it printed. */
function child(
  args: string[],
): Promise<{ code: number | null; signal: string | null; out: string; err: string }> {
  const p = spawn(process.execPath, [...SOURCE_LOADER, fixture, ...args], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  p.stdout.on("data", (d: Buffer) => {
    out += d.toString();
  });
  p.stderr.on("data", (d: Buffer) => {
    err += d.toString();
  });
  return new Promise((resolve) =>
    p.on("exit", (code, signal) => resolve({ code, signal, out, err })),
  );
}

const seeds = process.env.NODESTEP_KILL_SEED
  ? [Number(process.env.NODESTEP_KILL_SEED)]
  : Array.from({ length: Number(process.env.NODESTEP_KILL_SEEDS ?? 5) }, (_, i) => i + 1);

/** The two stores a killed process can leave a thread in: where it is, and how to open it. */
const KINDS = {
  sqlite: () => {
    const path = newSqlitePath();
    return { spec: `sqlite:${path}`, open: (): StateStore => new SqliteStateStore({ path }), path };
  },
  postgres: () => {
    const schema = newSchema();
    return {
      spec: `postgres:${schema}`,
      open: (): StateStore => new PostgresStateStore({ connectionString: PG_URL, schema }),
      path: null,
    };
  },
} as const;

for (const kind of ["sqlite", "postgres"] as const)
  it(
    `random graphs killed at a random moment on ${kind} end as they do uninterrupted (${seeds.length} seeds)`,
    async () => {
      const outcomes: string[] = [];
      for (const seed of seeds) {
        const stages = plan(seed);
        try {
          const seen: Seen = { finished: [], attempts: new Map() };
          const warmGraph = build(stages, new MemoryStateStore(), seen);
          const warm = await drive(seed, async () => warmGraph);

          const at = KINDS[kind]();
          const ms = Math.floor(rng(seed ^ 0x9e3779b9)() * 80);
          const killed = await child([String(seed), at.spec, "kill", String(ms)]);
          if (killed.signal !== "SIGKILL") {
            expect(killed, killed.err).toMatchObject({ code: 0, out: '{"done":true}\n' });
          }
          if (killed.signal === "SIGKILL") {
            const left = at.open();
            try {
              const n = (await left.read("t", "main").catch(() => [])).length;
              outcomes.push(n === 0 ? "killed before any event" : "killed mid-run");
            } finally {
              await left.close();
            }
          } else outcomes.push("done");
          const resumed = await child([String(seed), at.spec, "resume"]);
          expect(resumed.code, resumed.err).toBe(0);
          const state = JSON.parse(resumed.out) as S;
          expect(state).toEqual(warm.state);
          checkAnswers(state);

          const store = at.open();
          try {
            // No task is stored as finished twice (a task killed before its result was stored runs again).
            const done = (await store.read("t", "main"))
              .filter((e) => e.type === "task_finished")
              .map((e) => `${e.step}|${e.taskId}`);
            expect(new Set(done).size, "a task finished twice").toBe(done.length);
          } finally {
            await store.close();
          }
          if (at.path !== null) {
            const db = new Database(at.path, { readonly: true });
            try {
              expect(db.pragma("integrity_check")).toEqual([{ integrity_check: "ok" }]);
            } finally {
              db.close();
            }
          }
        } catch (e) {
          throw new Error(
            `model-kill test failed on ${kind} for seed ${seed} (${JSON.stringify(stages)}); replay: NODESTEP_KILL_SEED=${seed} npx vitest run --project default test/durable/model-kill.test.ts\n${(e as Error).message}`,
            { cause: e },
          );
        }
      }
      // The default seeds have a node that times out (seed 5).
      if (seeds.length >= 5)
        expect(seeds.some((n) => plan(n).some((st) => st.kind === "slow"))).toBe(true);
      // The kills land in the runs, not only before or after them.
      if (seeds.length >= 4) expect(outcomes).toContain("killed mid-run");
      if (process.env.NODESTEP_KILL_REPORT) console.log(outcomes.join("\n"));
    },
    Math.max(120_000, seeds.length * 10_000),
  );
