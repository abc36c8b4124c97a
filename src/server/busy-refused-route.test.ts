/**
 * `onBusy: "rollback"` on the server with input the agent refuses: the running resume's
 * request answers 409 `RunStoppedError`, the new message 409 `PendingToolCallsError` whose
 * message names the rollback; `GET …/state` shows the thread as rolled back (the approval
 * pending again), and answering it as the message says completes the run.
 */
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { buildReactAgent } from "../agents/index.js";
import { ScriptedChat } from "../chat/index.js";
import { ApprovalMiddleware } from "../middleware/index.js";
import { MemoryStateStore } from "../stores/index.js";
import { tool } from "../tools/index.js";
import { createServer, type ListeningServer, listen } from "./index.js";

let server: ListeningServer | null = null;
afterEach(() => server?.close());

const KEY = "1:0#c_tx";

describe("POST …/runs with onBusy rollback, input refused by the agent", () => {
  it("keeps the rollback: the state shows the pending approval, and answering it works", async () => {
    let transfers = 0;
    let enter!: () => void;
    const entered = new Promise<void>((r) => {
      enter = r;
    });
    let release!: () => void;
    const released = new Promise<void>((r) => {
      release = r;
    });
    const transfer = tool(
      async ({ amount }) => {
        if (transfers++ === 0) {
          enter();
          await released;
        }
        return `moved ${amount}`;
      },
      { name: "transfer", description: "Move money.", input: z.object({ amount: z.number() }) },
    );
    const store = new MemoryStateStore();
    const graph = buildReactAgent(
      new ScriptedChat([
        { toolCalls: [{ id: "c_tx", name: "transfer", arguments: { amount: 100 } }] },
        "Done: moved 100.",
      ]),
      {
        name: "bank",
        tools: [transfer],
        stateStore: store,
        middleware: [ApprovalMiddleware({ tools: ["transfer"] })],
      },
    );
    server = await listen(createServer({ graph }), { port: 0 });
    const url = server.url;
    const post = async (body: unknown) => {
      const res = await fetch(`${url}/api/threads/t/runs`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const paused = await post({ message: "move 100" });
    expect([paused.status, paused.body.status]).toEqual([200, "interrupted"]);
    const resume = post({ resume: { [KEY]: "yes" } });
    await entered;
    const resumeId = (await store.read("t", "main")).findLast(
      (e) => e.type === "run_started",
    )!.runId;
    const second = post({ message: "actually, my balance?", onBusy: "rollback" });
    let by = await store.stopRequested("t", "main", resumeId);
    while (by === null) {
      await new Promise((r) => setTimeout(r, 5));
      by = await store.stopRequested("t", "main", resumeId);
    }
    release();
    const [stopped, refused] = await Promise.all([resume, second]);
    expect(stopped).toEqual({
      status: 409,
      body: {
        error: {
          type: "RunStoppedError",
          message: `Run "${resumeId}" of graph "bank" on thread "t" (branch "main") was stopped before superstep 2 because run "${by}" asked for the thread (onBusy "interrupt" or "rollback"); the supersteps it committed stay in the log (a "rollback" undoes them)`,
        },
      },
    });
    expect(refused).toEqual({
      status: 409,
      body: {
        error: {
          type: "PendingToolCallsError",
          message: `Thread "t" of graph "bank" cannot take new input: tool call "c_tx" of the AIMessage at index 1 has no result and it waits on interrupt "${KEY}". Answer with invoke(null, { threadId: "t", resume: { "${KEY}": … } }), or fork the thread at event "t/main/1" (before the model's request) and send the input on the branch. Run "${resumeId}" was rolled back first (it stays undone; its tools may already have run, and answering runs them again); the input was not written`,
        },
      },
    });
    const state = (await (await fetch(`${url}/api/threads/t/state`)).json()) as {
      interrupts: { key: string }[];
      next: string[];
    };
    expect([state.interrupts.map((i) => i.key), state.next]).toEqual([[KEY], ["act"]]);
    const done = await post({ resume: { [KEY]: "yes" } });
    expect([done.status, done.body.status, transfers]).toEqual([200, "completed", 2]);
    expect((done.body.state as { finalText: string }).finalText).toBe("Done: moved 100.");
  });
});
