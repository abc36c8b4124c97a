/**
 * Durability (issue 3, item 9): a child process runs an agent on SQLite or PostgreSQL and is
 * killed with SIGKILL in the middle of a tool step; a new process resumes the thread with
 * `invoke(null, { threadId })`. The state is intact, no message is duplicated, the tool calls
 * that had finished do not run again, and the SQLite file passes `PRAGMA integrity_check`.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { expect, it } from "vitest";
import { AgentState } from "../../src/agents/index.js";
import type { Message } from "../../src/chat/index.js";
import { Graph } from "../../src/graph/index.js";
import type { PostgresStateStore } from "../../src/integrations/postgres/index.js";
import type { SqliteStateStore } from "../../src/integrations/sqlite/index.js";
import { runChild, startChild, waitFor } from "./child.js";
import { describeStores, tempDir } from "./stores.js";

describeStores(
  "kill in the middle of a tool step, resume in a new process",
  (fx) => {
    it("keeps the state, duplicates no message and runs no finished call again", async () => {
      const store = await fx.open();
      await store.listThreads(); // create the tables before two processes use them
      const kind = fx.kind as "sqlite" | "postgres";
      const target =
        kind === "sqlite" ? (store as SqliteStateStore).path : (store as PostgresStateStore).schema;
      const dir = mkdtempSync(join(tempDir(), "kill-"));

      const child = startChild(kind, target, dir, "kill");
      // Wait until the call "c2" blocks and the results of "c1" and "c3" are in the log.
      await waitFor(
        "c2 to block after c1 and c3 were saved",
        async () => {
          const events = await store.read("t", "main");
          return events.some((e) => {
            const cache = (e.data as { cache?: Record<string, unknown> } | null)?.cache;
            return e.type === "task_cache" && cache?.c1 !== undefined && cache?.c3 !== undefined;
          });
        },
        child,
      );
      await waitFor("the blocked marker", () => readable(join(dir, "blocked")), child);
      child.process.kill("SIGKILL");
      expect(await child.exited).toEqual({ code: null, signal: "SIGKILL" });
      expect(lines(join(dir, "runs.log"))).toEqual(["c1", "c2", "c3"]);

      // What the killed process left: the first run, the model's turn, the tool step to run.
      const reader = new Graph(AgentState, { stateStore: store });
      const before = await reader.getState("t");
      expect(before.status).toBe("running");
      expect(before.next).toEqual(["act"]);
      expect(before.state.messages.map((m) => m.content)).toEqual(["hi", "Hi.", "do it", null]);
      expect(before.state.toolCalls.map((c) => c.id)).toEqual(["c1", "c2", "c3"]);

      const out = await runChild(kind, target, dir, "resume");
      const resumed = JSON.parse(out) as {
        status: string;
        finalText: string | null;
        messages: Message[];
      };
      expect(resumed.status).toBe("completed");
      expect(resumed.finalText).toBe("All done.");
      expect(resumed.messages.map((m) => [m.type, m.content])).toEqual([
        ["human", "hi"],
        ["ai", "Hi."],
        ["human", "do it"],
        ["ai", null],
        ["tool", '{"result":"recorded first"}'],
        ["tool", '{"result":"unblocked"}'],
        ["tool", '{"result":"recorded third"}'],
        ["ai", "All done."],
      ]);
      const ids = resumed.messages.map((m) => m.id);
      expect(new Set(ids).size).toBe(8);
      expect(ids.slice(0, 4)).toEqual(before.state.messages.map((m) => m.id));
      // c1 and c3 had finished before the kill: only c2 ran again.
      expect(lines(join(dir, "runs.log"))).toEqual(["c1", "c2", "c2", "c3"]);

      const after = await reader.getState("t");
      expect(after.status).toBe("completed");
      expect(after.state.messages).toEqual(resumed.messages);
      const runs = (await reader.history("t")).filter((e) =>
        ["run_started", "run_finished", "run_failed"].includes(e.type),
      );
      expect(runs.map((e) => e.type)).toEqual([
        "run_started",
        "run_finished",
        "run_started",
        "run_started",
        "run_finished",
      ]);

      if (kind === "sqlite") {
        const db = new Database(target, { readonly: true });
        try {
          expect(db.pragma("integrity_check")).toEqual([{ integrity_check: "ok" }]);
        } finally {
          db.close();
        }
      }
    });
  },
  ["sqlite", "postgres"],
);

function lines(path: string): string[] {
  return readFileSync(path, "utf8").trim().split("\n").sort();
}

function readable(path: string): boolean {
  try {
    readFileSync(path);
    return true;
  } catch {
    return false;
  }
}
