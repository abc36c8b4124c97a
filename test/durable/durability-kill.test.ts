/**
 * The `durability` option under a process kill (docs/stores.md, "Durability"): a child process
 * continues a paused thread with `durability` "sync", "async" or "exit" and is killed with
 * SIGKILL inside node `c`; a new store and a new graph then continue the thread with
 * `invoke(null)`. Each mode leaves what its documentation says (sync: every superstep that
 * committed; async: a prefix of those; exit: nothing of the killed run), the thread resumes to
 * the same final state, and only the tasks whose commit was not stored run again.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import type { Durability } from "../../src/graph/index.js";
import type { PostgresStateStore } from "../../src/integrations/postgres/index.js";
import type { SqliteStateStore } from "../../src/integrations/sqlite/index.js";
import { SOURCE_LOADER } from "../source-loader.js";
import { durabilityGraph } from "./fixtures/durability-graph.js";
import { describeStores, tempDir } from "./stores.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const fixture = fileURLToPath(new URL("./fixtures/durability-child.ts", import.meta.url));

function runKilled(
  kind: string,
  target: string,
  dir: string,
  mode: Durability,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  const p = spawn(process.execPath, [...SOURCE_LOADER, fixture, kind, target, dir, mode], {
    cwd: root,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  p.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((resolve) =>
    p.on("exit", (code, signal) => resolve({ code, signal, stderr })),
  );
}

const lines = (dir: string) => readFileSync(join(dir, "runs.log"), "utf8").trim().split("\n");

describeStores(
  "durability: SIGKILL inside a run, resume in a new store",
  (fx) => {
    for (const mode of ["sync", "async", "exit"] as const) {
      it(`"${mode}" keeps what its documentation says and resumes to the same final state`, async () => {
        const store = await fx.open();
        const kind = fx.kind as "sqlite" | "postgres";
        const target =
          kind === "sqlite"
            ? (store as SqliteStateStore).path
            : (store as PostgresStateStore).schema;
        const dir = mkdtempSync(join(tempDir(), "durability-"));
        // The thread, paused before `a` (written in "sync" mode by this process).
        const paused = await durabilityGraph(store, dir).invoke(
          { log: ["start"] },
          { threadId: "t", interruptBefore: ["a"] },
        );
        expect(paused.status).toBe("interrupted");
        const before = await store.read("t", "main");

        const exit = await runKilled(kind, target, dir, mode);
        expect({ code: exit.code, signal: exit.signal }).toEqual({ code: null, signal: "SIGKILL" });
        expect(lines(dir)).toEqual(["a", "b", "c"]);

        // Cold: another store instance on the same data, and a new graph.
        const cold = await fx.reopen(store);
        const left = (await cold.read("t", "main")).slice(before.length).map((e) => e.type);
        const synced = ["run_started", "step_committed", "step_committed"];
        if (mode === "sync") expect(left).toEqual(synced);
        else if (mode === "exit") expect(left).toEqual([]);
        else expect(left).toEqual(synced.slice(0, left.length));
        const committed = left.filter((t) => t === "step_committed").length;

        const resumed = await durabilityGraph(cold, dir).invoke(null, { threadId: "t" });
        expect(resumed.status).toBe("completed");
        expect(resumed.state).toEqual({ log: ["start", "a", "b", "c", "d"] });
        // Run again: `c` (killed before it finished), and only the finished tasks whose
        // commit was not stored (none in "sync", both in "exit").
        const again = ["a", "b"].slice(committed);
        expect(lines(dir).slice(3)).toEqual([...again, "c", "d"]);
        if (mode === "sync") expect(again).toEqual([]);
        if (mode === "exit") expect(again).toEqual(["a", "b"]);

        const reader = durabilityGraph(await fx.reopen(store), dir);
        const after = await reader.getState("t");
        expect(after.status).toBe("completed");
        expect(after.state).toEqual({ log: ["start", "a", "b", "c", "d"] });
      });
    }
  },
  ["sqlite", "postgres"],
);
