/**
 * New input on an agent thread that waits on tool results (`buildReactAgent`'s `checkInput`):
 * a pending approval in the tool step, or a stopped tool turn. The input is refused with
 * `PendingToolCallsError` before anything is written: the same events, the same interrupts,
 * and answering (or continuing) still works. Warm (one graph, one store) and cold (a new graph
 * object and a new store instance per call), on every store.
 */
import { expect, it } from "vitest";
import { z } from "zod";
import { buildReactAgent, runAgent } from "../../src/agents/index.js";
import { ScriptedChat } from "../../src/chat/index.js";
import {
  ChatHistoryError,
  PendingToolCallsError,
  RunInterruptedError,
  ToolExecutionError,
} from "../../src/errors/index.js";
import { ApprovalMiddleware } from "../../src/middleware/index.js";
import type { StateStore } from "../../src/stores/types.js";
import { tool } from "../../src/tools/index.js";
import { expectError } from "../helpers.js";
import { describeStores, type StoreFixture } from "./stores.js";

const flags = { broken: false };
const transfer = tool(
  ({ amount }) => {
    if (flags.broken) throw new Error("bank down");
    return `moved ${amount}`;
  },
  {
    name: "transfer",
    description: "Move money.",
    input: z.object({ amount: z.number() }),
  },
);
const TURN = { toolCalls: [{ id: "c_tx", name: "transfer", arguments: { amount: 100 } }] };

/** Each call gets the agent from `agentOf`: the same one (warm), or a new one on a new store handle (cold). */
function agents(fx: StoreFixture, cold: boolean, approval: boolean) {
  const chat = new ScriptedChat([TURN, "Done: moved 100.", "You're welcome."]);
  let first: StateStore | null = null;
  const make = (stateStore: StateStore) =>
    buildReactAgent(chat, {
      name: "bank",
      tools: [transfer],
      stateStore,
      middleware: approval ? [ApprovalMiddleware({ tools: ["transfer"] })] : [],
    });
  let warm: ReturnType<typeof make> | null = null;
  return {
    chat,
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

describeStores("new input on a thread waiting on tool results", (fx) => {
  for (const cold of [false, true]) {
    const mode = cold ? "cold" : "warm";

    it(`is refused while an approval is pending; the thread is unchanged and the answer works (${mode})`, async () => {
      flags.broken = false;
      const a = agents(fx, cold, true);
      const paused = await expectError(
        async () => runAgent(await a.agent(), "move 100", { threadId: "t" }),
        RunInterruptedError,
        'Agent "bank" paused for human input (interrupt "1:0#c_tx"); answer with graph.invoke(null, { threadId: "t", resume: { "1:0#c_tx": <answer> } })',
      );
      const key = paused.interrupts[0]!.key;
      expect(key).toBe("1:0#c_tx");
      const before = await (await a.agent()).history("t");
      const e = await expectError(
        async () => runAgent(await a.agent(), "actually, my balance?", { threadId: "t" }),
        PendingToolCallsError,
        `Thread "t" of graph "bank" cannot take new input: tool call "c_tx" of the AIMessage at index 1 has no result and it waits on interrupt "${key}". Answer with invoke(null, { threadId: "t", resume: { "${key}": … } }), or fork the thread at event "t/main/1" (before the model's request) and send the input on the branch. Nothing was written`,
      );
      expect(e).toBeInstanceOf(ChatHistoryError);
      expect([e.threadId, e.branchId, e.index, e.callIds, e.interruptKeys, e.forkAt]).toEqual([
        "t",
        "main",
        1,
        ["c_tx"],
        [key],
        "t/main/1",
      ]);
      expect(await (await a.agent()).history("t")).toEqual(before);
      const snap = await (await a.agent()).getState("t");
      expect(snap.interrupts.map((i) => i.key)).toEqual([key]);
      expect(snap.next).toEqual(["act"]);
      const done = await (await a.agent()).invoke(null, {
        threadId: "t",
        resume: { [key]: "yes" },
      });
      expect([done.status, done.state.finalText]).toEqual(["completed", "Done: moved 100."]);
      expect(done.state.messages.map((m) => m.type)).toEqual(["human", "ai", "tool", "ai"]);
      expect(a.chat.requests).toHaveLength(2);
      // Once answered, new input is taken again.
      expect(await runAgent(await a.agent(), "thanks", { threadId: "t" })).toBe("You're welcome.");
    });

    it(`the fork it names takes the input: the branch keeps the human message before the request (${mode})`, async () => {
      flags.broken = false;
      const a = agents(fx, cold, true);
      await expectError(
        async () => runAgent(await a.agent(), "move 100", { threadId: "f" }),
        RunInterruptedError,
        'Agent "bank" paused for human input (interrupt "1:0#c_tx"); answer with graph.invoke(null, { threadId: "f", resume: { "1:0#c_tx": <answer> } })',
      );
      const e = await expectError(
        async () => runAgent(await a.agent(), "actually, my balance?", { threadId: "f" }),
        PendingToolCallsError,
        'Thread "f" of graph "bank" cannot take new input: tool call "c_tx" of the AIMessage at index 1 has no result and it waits on interrupt "1:0#c_tx". Answer with invoke(null, { threadId: "f", resume: { "1:0#c_tx": … } }), or fork the thread at event "f/main/1" (before the model\'s request) and send the input on the branch. Nothing was written',
      );
      await (await a.agent()).fork("f", { eventId: e.forkAt!, branchId: "b" });
      expect(
        await runAgent(await a.agent(), "actually, my balance?", { threadId: "f", branchId: "b" }),
      ).toBe("Done: moved 100.");
      const branch = await (await a.agent()).getState("f", { branchId: "b" });
      expect(branch.state.messages.map((m) => [m.type, m.content])).toEqual([
        ["human", "move 100"],
        ["human", "actually, my balance?"],
        ["ai", "Done: moved 100."],
      ]);
      expect([branch.status, branch.interrupts]).toEqual(["completed", []]);
      // The model was asked once on the branch, with both human messages; main still waits.
      expect(a.chat.requests.map((r) => r.messages.map((m) => m.type))).toEqual([
        ["human"],
        ["human", "human"],
      ]);
      const main = await (await a.agent()).getState("f");
      expect(main.interrupts.map((i) => i.key)).toEqual(["1:0#c_tx"]);
    });

    it(`a call id the model gave again in a later turn: the fork it names is before that turn's request (${mode})`, async () => {
      flags.broken = false;
      // The model numbers its calls per turn: the second request's call is "c_tx" again.
      const chat = new ScriptedChat([TURN, "Done: moved 100.", TURN, "Your balance is 0."]);
      const make = (stateStore: StateStore) =>
        buildReactAgent(chat, {
          name: "bank",
          tools: [transfer],
          stateStore,
          middleware: [ApprovalMiddleware({ tools: ["transfer"] })],
        });
      let first: StateStore | null = null;
      let warm: ReturnType<typeof make> | null = null;
      const agent = async () => {
        if (first === null) {
          first = await fx.open();
          warm = make(first);
          return warm;
        }
        return cold ? make(await fx.reopen(first)) : warm!;
      };
      await expectError(
        async () => runAgent(await agent(), "move 100", { threadId: "r" }),
        RunInterruptedError,
        'Agent "bank" paused for human input (interrupt "1:0#c_tx"); answer with graph.invoke(null, { threadId: "r", resume: { "1:0#c_tx": <answer> } })',
      );
      await (await agent()).invoke(null, { threadId: "r", resume: { "1:0#c_tx": "yes" } });
      const second = await expectError(
        async () => runAgent(await agent(), "move 100 again", { threadId: "r" }),
        RunInterruptedError,
        'Agent "bank" paused for human input (interrupt "4:0#c_tx"); answer with graph.invoke(null, { threadId: "r", resume: { "4:0#c_tx": <answer> } })',
      );
      const key = second.interrupts[0]!.key;
      const events = await (await agent()).history("r");
      const secondStart = events.findLast((x) => x.type === "run_started")!;
      const e = await expectError(
        async () => runAgent(await agent(), "my balance?", { threadId: "r" }),
        PendingToolCallsError,
        `Thread "r" of graph "bank" cannot take new input: tool call "c_tx" of the AIMessage at index 5 has no result and it waits on interrupt "${key}". Answer with invoke(null, { threadId: "r", resume: { "${key}": … } }), or fork the thread at event "${secondStart.id}" (before the model's request) and send the input on the branch. Nothing was written`,
      );
      expect(e.forkAt).toBe(secondStart.id);
      await (await agent()).fork("r", { eventId: e.forkAt!, branchId: "b" });
      expect(await runAgent(await agent(), "my balance?", { threadId: "r", branchId: "b" })).toBe(
        "Your balance is 0.",
      );
      const branch = await (await agent()).getState("r", { branchId: "b" });
      // The first turn is kept on the branch.
      expect(branch.state.messages.map((m) => [m.type, m.content])).toEqual([
        ["human", "move 100"],
        ["ai", null],
        ["tool", '{"result":"moved 100"}'],
        ["ai", "Done: moved 100."],
        ["human", "move 100 again"],
        ["human", "my balance?"],
        ["ai", "Your balance is 0."],
      ]);
    });

    it(`is refused after a stopped tool turn; invoke(null) then continues it (${mode})`, async () => {
      flags.broken = true;
      const a = agents(fx, cold, false);
      await expectError(
        async () => runAgent(await a.agent(), "move 100", { threadId: "s" }),
        ToolExecutionError,
        'Tool "transfer" failed on call "c_tx": Error: bank down',
      );
      const before = await (await a.agent()).history("s");
      await expectError(
        async () => runAgent(await a.agent(), "what happened?", { threadId: "s" }),
        PendingToolCallsError,
        'Thread "s" of graph "bank" cannot take new input: tool call "c_tx" of the AIMessage at index 1 has no result. Continue the tool step with invoke(null, { threadId: "s" }), or fork the thread at event "s/main/1" (before the model\'s request) and send the input on the branch. Nothing was written',
      );
      expect(await (await a.agent()).history("s")).toEqual(before);
      flags.broken = false;
      const done = await (await a.agent()).invoke(null, { threadId: "s" });
      expect([done.status, done.state.finalText]).toEqual(["completed", "Done: moved 100."]);
      expect(await runAgent(await a.agent(), "thanks", { threadId: "s" })).toBe("You're welcome.");
    });
  }
});
