/**
 * `refuseInputAfterOpenCalls` called directly: it lets input through without reading the
 * store, and when it refuses it names the event to fork at, or says what to look for when
 * the log has no event before the model's request.
 */
import { describe, expect, it } from "vitest";
import { AIMessage, HumanMessage, ToolMessage } from "../chat/index.js";
import { PendingToolCallsError } from "../errors/index.js";
import type { NewInputOnThread } from "../graph/graph-options.js";
import type { StoredEvent } from "../stores/types.js";
import { refuseInputAfterOpenCalls } from "./history.js";

const ask = AIMessage({
  content: "",
  toolCalls: [{ id: "c1", name: "refund", arguments: {}, argumentsError: null }],
});

function run(
  messages: unknown[],
  events: StoredEvent[],
  reads: { count: number },
  next: readonly string[] = ["act"],
): NewInputOnThread {
  return {
    graph: "agent",
    threadId: "t",
    branchId: "main",
    state: { messages },
    input: { messages: [HumanMessage({ content: "hi" })] },
    interrupts: [],
    next,
    rolledBack: [],
    events: async () => {
      reads.count++;
      return events;
    },
  };
}

const event = (seq: number, type: string, data: unknown): StoredEvent =>
  ({
    id: `t/main/${seq}`,
    threadId: "t",
    branchId: "main",
    seq,
    createdAt: 0,
    type,
    runId: "r1",
    step: 0,
    taskId: null,
    node: null,
    data,
  }) as StoredEvent;

describe("refuseInputAfterOpenCalls", () => {
  it("lets input after answered calls through without reading the events", () => {
    const reads = { count: 0 };
    expect(refuseInputAfterOpenCalls(run([HumanMessage({ content: "a" })], [], reads))).toBe(
      undefined,
    );
    expect(reads.count).toBe(0);
  });

  it("names the event before the one that wrote the request, skipping a rolled_back copy", async () => {
    const reads = { count: 0 };
    const events = [
      event(1, "run_started", { input: { messages: [HumanMessage({ content: "a" })] } }),
      event(2, "step_committed", { update: { messages: [ask] } }),
      event(3, "rolled_back", { position: { state: { messages: [ask] } } }),
    ];
    const refused = refuseInputAfterOpenCalls(run([ask], events, reads));
    const e = await refused?.catch((x: unknown) => x);
    expect(e).toBeInstanceOf(PendingToolCallsError);
    expect([(e as PendingToolCallsError).message, (e as PendingToolCallsError).forkAt]).toEqual([
      'Thread "t" of graph "agent" cannot take new input: tool call "c1" of the AIMessage at index 0 has no result. Continue the tool step with invoke(null, { threadId: "t" }), or fork the thread at event "t/main/1" (before the model\'s request) and send the input on the branch. Nothing was written',
      "t/main/1",
    ]);
    expect(reads.count).toBe(1);
  });

  it("a tool call id repeated from an answered turn: names the event before the request that is pending, not before the first", async () => {
    // A model (or a script) that numbers its calls per turn gives "c1" again.
    const answer = ToolMessage({ content: "done", toolCallId: "c1", name: "refund" });
    const events = [
      event(1, "run_started", { input: { messages: [HumanMessage({ content: "a" })] } }),
      event(2, "step_committed", { update: { messages: [ask] } }),
      event(3, "step_committed", { update: { messages: [answer] } }),
      event(4, "run_finished", { status: "completed" }),
      event(5, "run_started", { input: { messages: [HumanMessage({ content: "b" })] } }),
      event(6, "step_committed", { update: { messages: [ask] } }),
    ];
    const state = [
      HumanMessage({ content: "a" }),
      ask,
      answer,
      HumanMessage({ content: "b" }),
      ask,
    ];
    const e = await refuseInputAfterOpenCalls(run(state, events, { count: 0 }))?.catch(
      (x: unknown) => x,
    );
    expect((e as PendingToolCallsError).forkAt).toBe("t/main/5");
  });

  it("an event that holds both the answer to an earlier call with the id and the new request: the fork is before it", async () => {
    const answer = ToolMessage({ content: "done", toolCallId: "c1", name: "refund" });
    const events = [
      event(1, "run_started", { input: { messages: [HumanMessage({ content: "a" })] } }),
      event(2, "step_committed", { update: { messages: [ask] } }),
      event(3, "run_finished", { status: "interrupted" }),
      event(4, "state_updated", { update: { messages: [answer, ask] } }),
    ];
    const state = [HumanMessage({ content: "a" }), ask, answer, ask];
    const e = await refuseInputAfterOpenCalls(run(state, events, { count: 0 }))?.catch(
      (x: unknown) => x,
    );
    expect((e as PendingToolCallsError).forkAt).toBe("t/main/3");
  });

  it("an event that holds a whole earlier turn with the id (request and answer): the fork is before the later request", async () => {
    const answer = ToolMessage({ content: "done", toolCallId: "c1", name: "refund" });
    const events = [
      event(1, "run_started", { input: { messages: [HumanMessage({ content: "a" })] } }),
      event(2, "state_updated", { update: { messages: [ask, answer] } }),
      event(3, "run_started", { input: { messages: [HumanMessage({ content: "b" })] } }),
      event(4, "step_committed", { update: { messages: [ask] } }),
    ];
    const state = [
      HumanMessage({ content: "a" }),
      ask,
      answer,
      HumanMessage({ content: "b" }),
      ask,
    ];
    const e = await refuseInputAfterOpenCalls(run(state, events, { count: 0 }))?.catch(
      (x: unknown) => x,
    );
    expect((e as PendingToolCallsError).forkAt).toBe("t/main/3");
  });

  it("a request edited by a state update (the same message written again): the fork is before the original", async () => {
    const events = [
      event(1, "run_started", { input: { messages: [HumanMessage({ content: "a" })] } }),
      event(2, "step_committed", { update: { messages: [ask] } }),
      event(3, "run_finished", { status: "interrupted" }),
      event(4, "state_updated", { update: { messages: [ask] } }),
    ];
    const e = await refuseInputAfterOpenCalls(
      run([HumanMessage({ content: "a" }), ask], events, { count: 0 }),
    )?.catch((x: unknown) => x);
    expect((e as PendingToolCallsError).forkAt).toBe("t/main/1");
  });

  it("a tool's result kept while its step failed (a cache write, not an answer in the state) does not count", async () => {
    const cached = ToolMessage({ content: "shipped", toolCallId: "c1", name: "refund" });
    const events = [
      event(1, "run_started", { input: { messages: [HumanMessage({ content: "a" })] } }),
      event(2, "step_committed", { update: { messages: [ask] } }),
      event(3, "task_cache", { cache: { c1: cached } }),
      event(4, "run_failed", { error: "boom" }),
    ];
    const e = await refuseInputAfterOpenCalls(
      run([HumanMessage({ content: "a" }), ask], events, { count: 0 }),
    )?.catch((x: unknown) => x);
    expect((e as PendingToolCallsError).forkAt).toBe("t/main/1");
  });

  it("a rolled-back run that answered the call and asked again with the same id: its events do not count", async () => {
    const answer = ToolMessage({ content: "done", toolCallId: "c1", name: "refund" });
    const events = [
      event(1, "run_started", { input: { messages: [HumanMessage({ content: "a" })] } }),
      event(2, "step_committed", { update: { messages: [ask] } }),
      event(3, "run_finished", { status: "interrupted" }),
      event(4, "run_started", { input: null }),
      event(5, "step_committed", { update: { messages: [answer] } }),
      event(6, "step_committed", { update: { messages: [ask] } }),
      event(7, "rolled_back", {
        runs: ["r1"],
        toEventId: "t/main/3",
        position: { state: { messages: [HumanMessage({ content: "a" }), ask] } },
      }),
    ];
    const state = [HumanMessage({ content: "a" }), ask];
    const e = await refuseInputAfterOpenCalls(run(state, events, { count: 0 }))?.catch(
      (x: unknown) => x,
    );
    expect((e as PendingToolCallsError).forkAt).toBe("t/main/1");
  });

  it("with nothing to run next (the calls written by updateState, not by a run of the model), does not advise invoke(null)", async () => {
    const events = [
      event(1, "run_started", { input: { messages: [HumanMessage({ content: "a" })] } }),
      event(2, "run_finished", { status: "completed" }),
      event(3, "state_updated", { update: { messages: [ask] } }),
    ];
    const e = await refuseInputAfterOpenCalls(
      run([HumanMessage({ content: "a" }), ask], events, { count: 0 }, []),
    )?.catch((x: unknown) => x);
    expect([(e as PendingToolCallsError).message, (e as PendingToolCallsError).forkAt]).toEqual([
      'Thread "t" of graph "agent" cannot take new input: tool call "c1" of the AIMessage at index 1 has no result. Nothing runs next on the thread to answer it (invoke(null) would end at once): add a ToolMessage for it with updateState, or fork the thread at event "t/main/2" (before the model\'s request) and send the input on the branch. Nothing was written',
      "t/main/2",
    ]);
  });

  it("without an event before the request, says what to fork at and has no forkAt", async () => {
    const reads = { count: 0 };
    const events = [event(1, "run_started", { init: { messages: [ask] } })];
    const e = await refuseInputAfterOpenCalls(run([ask], events, reads))?.catch((x: unknown) => x);
    expect([(e as PendingToolCallsError).message, (e as PendingToolCallsError).forkAt]).toEqual([
      'Thread "t" of graph "agent" cannot take new input: tool call "c1" of the AIMessage at index 0 has no result. Continue the tool step with invoke(null, { threadId: "t" }), or fork the thread at the event before the model\'s request and send the input on the branch. Nothing was written',
      null,
    ]);
  });
});
