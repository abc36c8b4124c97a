/**
 * Issue 13, item 8: after a writer is killed with SIGKILL, a new run on its thread starts at
 * once on SQLite and PostgreSQL, although the dead writer's lease (30 s here) has not expired:
 * the store knows the writer is gone (SQLite: its process is gone from this machine;
 * PostgreSQL: its database session ended). Before, the new run met `ThreadBusyError` for the
 * whole lease. The resuming process does not retry: its first `invoke(null)` must succeed.
 */
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { AgentState } from "../../src/agents/index.js";
import { Graph } from "../../src/graph/index.js";
import type { PostgresStateStore } from "../../src/integrations/postgres/index.js";
import type { SqliteStateStore } from "../../src/integrations/sqlite/index.js";
import { exists, runChild, startChild, waitFor } from "./child.js";
import { describeStores, tempDir } from "./stores.js";

describeStores(
  "SIGKILL of a writer with a 30 s lease, then a new run at once",
  (fx) => {
    it("resumes the thread on the first try", async () => {
      const store = await fx.open();
      await store.listThreads(); // create the tables before two processes use them
      const kind = fx.kind as "sqlite" | "postgres";
      const target =
        kind === "sqlite" ? (store as SqliteStateStore).path : (store as PostgresStateStore).schema;
      const dir = mkdtempSync(join(tempDir(), "takeover-"));
      const child = startChild(kind, target, dir, "kill", { LEASE_MS: "30000" });
      await waitFor("the blocked marker", exists(join(dir, "blocked")), child);
      child.process.kill("SIGKILL");
      expect(await child.exited).toEqual({ code: null, signal: "SIGKILL" });
      const before = await new Graph(AgentState, { stateStore: store }).getState("t");
      expect(before.status).toBe("running");

      const out = await runChild(kind, target, dir, "resume", { NO_RETRY: "1" });
      const resumed = JSON.parse(out) as { status: string; finalText: string | null };
      expect(resumed).toMatchObject({ status: "completed", finalText: "All done." });
    });
  },
  ["sqlite", "postgres"],
);
