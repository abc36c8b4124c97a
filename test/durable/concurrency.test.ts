/**
 * One writer per thread and branch: a second run on a busy thread fails at once with
 * ThreadBusyError, on every store, from another store handle, and across two processes on
 * SQLite and PostgreSQL; runs on different threads proceed in parallel.
 */

import { mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { buildReactAgent, runAgent } from "../../src/agents/index.js";
import { HumanMessage, ScriptedChat } from "../../src/chat/index.js";
import { ThreadBusyError } from "../../src/errors/index.js";
import type { PostgresStateStore } from "../../src/integrations/postgres/index.js";
import type { SqliteStateStore } from "../../src/integrations/sqlite/index.js";
import type { StateStore } from "../../src/stores/types.js";
import { tool } from "../../src/tools/index.js";
import { expectError } from "../helpers.js";
import { exists, startChild, waitFor } from "./child.js";
import { describeStores, tempDir } from "./stores.js";

/** A promise with its resolve function. */
function gate<T = void>() {
  let open!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    open = r;
  });
  return { promise, open };
}

const CALL = { toolCalls: [{ id: "w1", name: "wait", arguments: {} }] };

const busy = (thread: string) =>
  `Thread "${thread}" (branch "main") is already running; graph "agent" cannot start a second run on it until the first ends (or its lease of 30000 ms expires); pass onBusy: "enqueue" to wait for it, "interrupt" to stop it or "rollback" to undo it (docs/busy-threads.md)`;

describeStores("one writer per thread", (fx) => {
  it("a second run on a busy thread fails at once with ThreadBusyError, also from another handle", async () => {
    const entered = gate();
    const release = gate<string>();
    const wait = tool(
      async () => {
        entered.open();
        return release.promise;
      },
      { name: "wait", description: "Wait." },
    );
    const store = await fx.open();
    const chat = new ScriptedChat([CALL, "Done."]);
    const agent = buildReactAgent(chat, { tools: [wait], stateStore: store });
    const first = runAgent(agent, "start", { threadId: "t" });
    await entered.promise;

    await expectError(
      () => runAgent(agent, "again", { threadId: "t" }),
      ThreadBusyError,
      busy("t"),
    );
    await expectError(() => agent.invoke(null, { threadId: "t" }), ThreadBusyError, busy("t"));
    const other = buildReactAgent(new ScriptedChat([]), {
      tools: [wait],
      stateStore: await fx.reopen(store),
    });
    const e = await expectError(
      () => runAgent(other, "from elsewhere", { threadId: "t" }),
      ThreadBusyError,
      busy("t"),
    );
    expect(e.threadId).toBe("t");
    expect(e.branchId).toBe("main");

    release.open("ok");
    expect(await first).toBe("Done.");
    // The refused runs wrote nothing; the thread is free again.
    const snap = await agent.getState("t");
    expect(snap.state.messages.map((m) => m.content)).toEqual([
      "start",
      null,
      '{"result":"ok"}',
      "Done.",
    ]);
    const next = buildReactAgent(new ScriptedChat(["Again."]), {
      tools: [wait],
      stateStore: store,
    });
    expect(await runAgent(next, "again", { threadId: "t" })).toBe("Again.");
  });

  it("runs on different threads proceed in parallel", async () => {
    // Each tool waits until both runs are inside their tool step: serialized runs never finish.
    const arrived: string[] = [];
    const both = gate();
    const wait = tool(
      async (_a, ctx) => {
        arrived.push(ctx.threadId ?? "");
        if (arrived.length === 2) both.open();
        await both.promise;
        return ctx.threadId;
      },
      { name: "wait", description: "Wait." },
    );
    const store = await fx.open();
    const agent = buildReactAgent(new ScriptedChat([CALL, CALL, "One.", "Two."]), {
      tools: [wait],
      stateStore: store,
    });
    const results = await Promise.all([
      agent.invoke({ messages: [HumanMessage({ content: "a" })] }, { threadId: "t1" }),
      agent.invoke({ messages: [HumanMessage({ content: "b" })] }, { threadId: "t2" }),
    ]);
    expect(results.map((r) => r.status)).toEqual(["completed", "completed"]);
    expect(arrived.sort()).toEqual(["t1", "t2"]);
    expect((await agent.getState("t1")).state.messages[2]!.content).toBe('{"result":"t1"}');
    expect((await agent.getState("t2")).state.messages[2]!.content).toBe('{"result":"t2"}');
  });
});

describeStores(
  "one writer per thread across processes",
  (fx) => {
    it("a run held open by a child process makes a run here fail with ThreadBusyError", async () => {
      const store = await fx.open();
      const dir = mkdtempSync(join(tempDir(), "hold-"));
      const target =
        fx.kind === "sqlite"
          ? (store as SqliteStateStore).path
          : (store as PostgresStateStore).schema;
      if (fx.kind === "sqlite") await store.listThreads(); // create the file's tables first
      const child = startChild(fx.kind as "sqlite" | "postgres", target, dir, "hold");
      await waitFor("the child's run to start its tool", exists(join(dir, "started")), child);

      const unused = tool(() => null, { name: "block", description: "Wait for something." });
      const agent = buildReactAgent(new ScriptedChat(["After."]), {
        tools: [unused],
        stateStore: store as StateStore,
      });
      await expectError(
        () => runAgent(agent, "now", { threadId: "t" }),
        ThreadBusyError,
        busy("t"),
      );

      writeFileSync(join(dir, "release"), "");
      expect(await child.exited).toEqual({ code: 0, signal: null });
      expect(child.stdout()).toBe("completed\n");
      expect(await runAgent(agent, "now", { threadId: "t" })).toBe("After.");
      const snap = await agent.getState("t");
      expect(snap.state.messages.map((m) => m.content)).toEqual([
        "hold",
        null,
        '{"result":"unblocked"}',
        "Held.",
        "now",
        "After.",
      ]);
    });
  },
  ["sqlite", "postgres"],
);
