/**
 * New input on an agent thread that is busy, refused by `buildReactAgent`'s `checkInput`
 * (`PendingToolCallsError`), for each busy-thread policy that lets the run take the thread:
 * the refusal judges the thread as the store holds it when the run took the thread (after a
 * `"rollback"`'s `rolled_back` event, which is written and stays; after an `"interrupt"`'s
 * stopped run, whose work stays; after an `"enqueue"`'s wait), and the way on the error gives
 * works when followed. Warm (one agent, one store) and cold (a new agent on a new store handle
 * per call), on every store.
 */
import { expect, it } from "vitest";
import { z } from "zod";
import { buildReactAgent, runAgent } from "../../src/agents/index.js";
import { type Chat, type ChatRequest, ScriptedChat } from "../../src/chat/index.js";
import {
  PendingToolCallsError,
  RunInterruptedError,
  RunStoppedError,
} from "../../src/errors/index.js";
import { ApprovalMiddleware } from "../../src/middleware/index.js";
import type { StateStore } from "../../src/stores/types.js";
import { tool } from "../../src/tools/index.js";
import { caught, expectError, type Gate, gate } from "../helpers.js";
import { describeStores, type StoreFixture } from "./stores.js";

/** What the test holds the model and the tool at, and how often the tool ran. */
const held: { model: Gate | null; tool: Gate | null; transfers: number } = {
  model: null,
  tool: null,
  transfers: 0,
};

const transfer = tool(
  async ({ amount }) => {
    held.transfers++;
    const g = held.tool;
    held.tool = null;
    if (g) await g.wait();
    return `moved ${amount}`;
  },
  { name: "transfer", description: "Move money.", input: z.object({ amount: z.number() }) },
);
const TURN = { toolCalls: [{ id: "c_tx", name: "transfer", arguments: { amount: 100 } }] };

/** `inner`, its next call held at `held.model` when set. */
function heldChat(inner: ScriptedChat): Chat {
  const hold = async () => {
    const g = held.model;
    held.model = null;
    if (g) await g.wait();
  };
  return {
    model: inner.model,
    async complete(request: ChatRequest, options) {
      await hold();
      return inner.complete(request, options);
    },
    async *stream(request: ChatRequest, options) {
      await hold();
      yield* inner.stream(request, options);
    },
  };
}

/** Each call gets the agent from `agent()`: the same one (warm), or a new one on a new store handle (cold). */
function agents(fx: StoreFixture, cold: boolean, approval: boolean) {
  const chat = new ScriptedChat([TURN, "Done: moved 100.", "You're welcome."]);
  const model = heldChat(chat);
  let first: StateStore | null = null;
  const make = (stateStore: StateStore) =>
    buildReactAgent(model, {
      name: "bank",
      tools: [transfer],
      stateStore,
      middleware: approval ? [ApprovalMiddleware({ tools: ["transfer"] })] : [],
    });
  let warm: ReturnType<typeof make> | null = null;
  return {
    chat,
    /** The first store handle (opened by the first `agent()`). */
    store: () => first!,
    async agent() {
      if (first === null) {
        first = await fx.open();
        warm = make(first);
        return warm;
      }
      return cold ? make(await fx.reopen(first)) : warm!;
    },
  };
}

/** The run id of the last `run_started` on the thread. */
async function runningId(store: StateStore): Promise<string> {
  return (await store.read("t", "main")).findLast((e) => e.type === "run_started")!.runId;
}

/** Wait until another run asked `owner` to stop; its id. */
async function stopAsked(store: StateStore, owner: string): Promise<string> {
  for (let i = 0; i < 2000; i++) {
    const by = await store.stopRequested!("t", "main", owner);
    if (by !== null) return by;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error("no stop request came");
}

const KEY = "1:0#c_tx";
const FORK =
  'fork the thread at event "t/main/1" (before the model\'s request) and send the input on the branch';

describeStores("new input on a busy agent thread, refused", (fx) => {
  for (const cold of [false, true]) {
    const mode = cold ? "cold" : "warm";

    it(`rollback: the resume running the approved tool is undone and stays undone; the input is refused on the rolled-back thread and answering works (${mode})`, async () => {
      held.transfers = 0;
      const a = agents(fx, cold, true);
      await expectError(
        async () => runAgent(await a.agent(), "move 100", { threadId: "t" }),
        RunInterruptedError,
        `Agent "bank" paused for human input (interrupt "${KEY}"); answer with graph.invoke(null, { threadId: "t", resume: { "${KEY}": <answer> } })`,
      );
      const paused = await (await a.agent()).history("t");
      // The answer runs the tool, held while the new message comes with onBusy "rollback".
      held.tool = gate();
      const toolHeld = held.tool;
      const agent = await a.agent();
      const resume = caught(() => agent.invoke(null, { threadId: "t", resume: { [KEY]: "yes" } }));
      await toolHeld.entered;
      const resumeId = await runningId(a.store());
      const second = await a.agent();
      const refusal = caught(() =>
        runAgent(second, "actually, my balance?", { threadId: "t", onBusy: "rollback" }),
      );
      const by = await stopAsked(a.store(), resumeId);
      toolHeld.open();
      const [stopped, refused] = await Promise.all([resume, refusal]);
      expect(stopped).toBeInstanceOf(RunStoppedError);
      expect(stopped.message).toBe(
        `Run "${resumeId}" of graph "bank" on thread "t" (branch "main") was stopped before superstep 2 because run "${by}" asked for the thread (onBusy "interrupt" or "rollback"); the supersteps it committed stay in the log (a "rollback" undoes them)`,
      );
      expect(refused).toBeInstanceOf(PendingToolCallsError);
      expect(refused.message).toBe(
        `Thread "t" of graph "bank" cannot take new input: tool call "c_tx" of the AIMessage at index 1 has no result and it waits on interrupt "${KEY}". Answer with invoke(null, { threadId: "t", resume: { "${KEY}": … } }), or ${FORK}. Run "${resumeId}" was rolled back first (it stays undone; its tools may already have run, and answering runs them again); the input was not written`,
      );
      const e = refused as PendingToolCallsError;
      expect([e.threadId, e.branchId, e.index, e.callIds, e.interruptKeys]).toEqual([
        "t",
        "main",
        1,
        ["c_tx"],
        [KEY],
      ]);
      // The store holds what the check judged: the undone resume's events, then the rollback
      // (written by the refused run), and nothing of the input.
      const events = await (await a.agent()).history("t");
      expect(events.slice(0, paused.length)).toEqual(paused);
      expect(events.slice(paused.length).map((x) => [x.type, x.runId])).toEqual([
        ["run_started", resumeId],
        ["step_committed", resumeId],
        ["run_finished", resumeId],
        ["rolled_back", by],
      ]);
      expect(events.at(-1)!.data).toMatchObject({ runs: [resumeId], toEventId: paused.at(-1)!.id });
      expect([events.at(-1)!.step, paused.at(-1)!.step]).toEqual([1, 1]);
      const snap = await (await a.agent()).getState("t");
      expect(snap.interrupts.map((i) => i.key)).toEqual([KEY]);
      expect(snap.next).toEqual(["act"]);
      expect(snap.state.messages.map((m) => m.type)).toEqual(["human", "ai"]);
      // The advice works: the answer runs the tool again (the rollback undid its result).
      const done = await (await a.agent()).invoke(null, {
        threadId: "t",
        resume: { [KEY]: "yes" },
      });
      expect([done.status, done.state.finalText]).toEqual(["completed", "Done: moved 100."]);
      expect(done.state.messages.map((m) => m.type)).toEqual(["human", "ai", "tool", "ai"]);
      expect([held.transfers, a.chat.requests.length]).toEqual([2, 2]);
      expect(await runAgent(await a.agent(), "thanks", { threadId: "t" })).toBe("You're welcome.");
    });

    it(`interrupt: the run stopped after the model's tool request keeps it; the input is refused and invoke(null) continues the tool step (${mode})`, async () => {
      held.transfers = 0;
      const a = agents(fx, cold, false);
      held.model = gate();
      const modelHeld = held.model;
      const agent = await a.agent();
      const firstRun = caught(() => runAgent(agent, "move 100", { threadId: "t" }));
      await modelHeld.entered;
      const firstId = await runningId(a.store());
      const second = await a.agent();
      const refusal = caught(() =>
        runAgent(second, "actually, my balance?", { threadId: "t", onBusy: "interrupt" }),
      );
      const by = await stopAsked(a.store(), firstId);
      modelHeld.open();
      const [stopped, refused] = await Promise.all([firstRun, refusal]);
      expect(stopped.message).toBe(
        `Run "${firstId}" of graph "bank" on thread "t" (branch "main") was stopped before superstep 1 because run "${by}" asked for the thread (onBusy "interrupt" or "rollback"); the supersteps it committed stay in the log (a "rollback" undoes them)`,
      );
      expect(refused).toBeInstanceOf(PendingToolCallsError);
      expect(refused.message).toBe(
        `Thread "t" of graph "bank" cannot take new input: tool call "c_tx" of the AIMessage at index 1 has no result. Continue the tool step with invoke(null, { threadId: "t" }), or ${FORK}. Nothing was written`,
      );
      const events = await (await a.agent()).history("t");
      expect(events.map((x) => [x.type, x.runId])).toEqual([
        ["run_started", firstId],
        ["step_committed", firstId],
        ["run_finished", firstId],
      ]);
      const snap = await (await a.agent()).getState("t");
      expect([snap.next, snap.interrupts]).toEqual([["act"], []]);
      const done = await (await a.agent()).invoke(null, { threadId: "t" });
      expect([done.status, done.state.finalText]).toEqual(["completed", "Done: moved 100."]);
      expect(done.state.messages.map((m) => m.type)).toEqual(["human", "ai", "tool", "ai"]);
      expect(held.transfers).toBe(1);
    });

    it(`enqueue: the input waits for the run, which pauses on the approval; it is refused there and the answer works (${mode})`, async () => {
      held.transfers = 0;
      const a = agents(fx, cold, true);
      held.model = gate();
      const modelHeld = held.model;
      const agent = await a.agent();
      const firstRun = caught(() => runAgent(agent, "move 100", { threadId: "t" }));
      await modelHeld.entered;
      const second = await a.agent();
      const refusal = caught(() =>
        runAgent(second, "actually, my balance?", { threadId: "t", onBusy: "enqueue" }),
      );
      await new Promise((r) => setTimeout(r, 30));
      modelHeld.open();
      const [paused, refused] = await Promise.all([firstRun, refusal]);
      expect(paused).toBeInstanceOf(RunInterruptedError);
      expect(refused).toBeInstanceOf(PendingToolCallsError);
      expect(refused.message).toBe(
        `Thread "t" of graph "bank" cannot take new input: tool call "c_tx" of the AIMessage at index 1 has no result and it waits on interrupt "${KEY}". Answer with invoke(null, { threadId: "t", resume: { "${KEY}": … } }), or ${FORK}. Nothing was written`,
      );
      const events = await (await a.agent()).history("t");
      expect(events.at(-1)!.type).toBe("run_finished");
      expect(new Set(events.map((x) => x.runId)).size).toBe(1);
      const done = await (await a.agent()).invoke(null, {
        threadId: "t",
        resume: { [KEY]: "yes" },
      });
      expect([done.status, done.state.finalText]).toEqual(["completed", "Done: moved 100."]);
      expect(held.transfers).toBe(1);
    });
  }
});
