/**
 * Interrupts through agents on every store: RunInterruptedError and resume, approvals that
 * approve, edit and reject calls of one turn, parallel interrupts of tool calls and of graph
 * tasks, and the tool-call budget over a run and its resumes.
 */
import { expect, it } from "vitest";
import { z } from "zod";
import { buildReactAgent, runAgent } from "../../src/agents/index.js";
import { AIMessage, HumanMessage, ScriptedChat, ToolMessage } from "../../src/chat/index.js";
import { RunInterruptedError, ToolExecutionError, ValueError } from "../../src/errors/index.js";
import { Graph, node, START, subgraph } from "../../src/graph/index.js";
import { END } from "../../src/graph/routing.js";
import type { JsonValue } from "../../src/json/index.js";
import { ApprovalMiddleware } from "../../src/middleware/index.js";
import { defineState, reducer } from "../../src/state/index.js";
import { tool } from "../../src/tools/index.js";
import { caught, expectError } from "../helpers.js";
import { describeStores } from "./stores.js";

/** How many times each tool ran, with which arguments. */
function counter() {
  const runs: Array<{ tool: string; args: unknown }> = [];
  return {
    runs,
    count: (name: string) => runs.filter((r) => r.tool === name).length,
  };
}

function refundTools(c: ReturnType<typeof counter>) {
  const refund = tool(
    (args) => {
      c.runs.push({ tool: "refund", args });
      return `refunded ${args.amount} on ${args.orderId}`;
    },
    {
      name: "refund",
      description: "Refund an order.",
      input: z.object({ orderId: z.string(), amount: z.number() }),
    },
  );
  const lookup = tool(
    (args) => {
      c.runs.push({ tool: "lookup", args });
      return "shipped";
    },
    {
      name: "lookup",
      description: "Look up an order.",
      input: z.object({ orderId: z.string() }),
    },
  );
  const ask = tool(
    (args, ctx) => {
      c.runs.push({ tool: "ask", args });
      const answer = ctx.interrupt<string>({ question: args.question });
      return `person said ${answer}`;
    },
    {
      name: "ask",
      description: "Ask the person a question.",
      input: z.object({ question: z.string() }),
    },
  );
  return { refund, lookup, ask };
}

/** Messages with their ids (random uuids given by addMessages) set to null, to compare. */
const noIds = (ms: readonly object[]) => ms.map((m) => ({ ...m, id: null }));

const call = (id: string, name: string, args: Record<string, JsonValue>) => ({
  id,
  name,
  arguments: args,
});

describeStores("interrupts through an agent", (fx) => {
  it("runAgent raises RunInterruptedError; resume finishes the turn without re-running finished calls", async () => {
    const c = counter();
    const { ask, lookup } = refundTools(c);
    const chat = new ScriptedChat([
      {
        toolCalls: [
          call("c1", "lookup", { orderId: "A-1" }),
          call("c2", "ask", { question: "Which address?" }),
        ],
      },
      "Done.",
    ]);
    const agent = buildReactAgent(chat, { tools: [lookup, ask], stateStore: await fx.open() });
    const e = await expectError(
      () => runAgent(agent, "Ship it", { threadId: "t1" }),
      RunInterruptedError,
      'Agent "agent" paused for human input (interrupt "1:0#c2"); answer with graph.invoke(null, { threadId: "t1", resume: { "1:0#c2": <answer> } })',
    );
    expect(e.threadId).toBe("t1");
    expect(e.interrupts).toEqual([
      { key: "1:0#c2", value: { question: "Which address?" }, node: "act", taskId: "1:0" },
    ]);
    expect(c.runs).toEqual([
      { tool: "lookup", args: { orderId: "A-1" } },
      { tool: "ask", args: { question: "Which address?" } },
    ]);
    const snap = await agent.getState("t1");
    expect(snap.status).toBe("interrupted");
    expect(snap.next).toEqual(["act"]);
    expect(snap.interrupts).toEqual(e.interrupts);

    const done = await agent.invoke(null, { threadId: "t1", resume: { "1:0#c2": "Main St" } });
    expect(done.status).toBe("completed");
    expect(done.interrupts).toEqual([]);
    // lookup finished before the pause: it does not run again; ask runs again from its start.
    expect(c.count("lookup")).toBe(1);
    expect(c.count("ask")).toBe(2);
    expect(noIds(chat.requests.at(-1)!.messages.slice(-2))).toEqual([
      ToolMessage({ content: '{"result":"shipped"}', toolCallId: "c1", name: "lookup" }),
      ToolMessage({ content: '{"result":"person said Main St"}', toolCallId: "c2", name: "ask" }),
    ]);
    expect(done.state.finalText).toBe("Done.");
    expect((await agent.getState("t1")).status).toBe("completed");
  });

  it("gives ctx.resumeValues and ctx.cache back to the paused task", async () => {
    const State = defineState({
      log: reducer(z.array(z.string()).default([]), (a, b) => [...a, ...b]),
    });
    const seen: Array<{ resume: unknown; cache: unknown }> = [];
    const step = node(
      async (_s: typeof State.State, ctx) => {
        seen.push({ resume: { ...ctx.resumeValues }, cache: { ...ctx.cache } });
        if (ctx.cache.work === undefined) {
          (ctx.cache as Record<string, JsonValue>).work = "expensive result";
          await ctx.saveCache();
        }
        const a = ctx.interrupt<string>("first?", { key: "a" });
        const b = ctx.interrupt<string>("second?", { key: "b" });
        return { log: [`${String(ctx.cache.work)} ${a} ${b}`] };
      },
      { name: "step" },
    );
    const graph = new Graph(State, { stateStore: await fx.open() }).flow(
      START.to(step),
      step.to(END),
    );
    const r1 = await graph.invoke({}, { threadId: "t" });
    expect(r1.interrupts.map((i) => i.key)).toEqual(["a"]);
    // A node that interrupts twice pauses twice; the answered key never fires again.
    const r2 = await graph.invoke(null, { threadId: "t", resume: { a: "A" } });
    expect(r2.status).toBe("interrupted");
    expect(r2.interrupts).toEqual([{ key: "b", value: "second?", node: "step", taskId: "0:0" }]);
    await expectError(
      () => graph.invoke(null, { threadId: "t", resume: { c: "nobody asked" } }),
      ValueError,
      'Thread "t" has no pending interrupt with key "c"; pending: b',
    );
    const r3 = await graph.invoke(null, { threadId: "t", resume: { b: "B" } });
    expect(r3.status).toBe("completed");
    expect(r3.state.log).toEqual(["expensive result A B"]);
    expect(seen).toEqual([
      { resume: {}, cache: {} },
      { resume: { a: "A" }, cache: { work: "expensive result" } },
      { resume: { a: "A", b: "B" }, cache: { work: "expensive result" } },
    ]);
  });

  it("counts maxToolCalls over a run and its resumes, and afresh for a new run", async () => {
    const c = counter();
    const { ask, lookup } = refundTools(c);
    const chat = new ScriptedChat([
      { toolCalls: [call("c1", "ask", { question: "Which order?" })] },
      {
        toolCalls: [
          call("c2", "lookup", { orderId: "A-1" }),
          call("c3", "lookup", { orderId: "A-2" }),
        ],
      },
      "Looked up one.",
      { toolCalls: [call("c4", "lookup", { orderId: "A-3" })] },
      "Looked up.",
    ]);
    const agent = buildReactAgent(chat, {
      tools: [lookup, ask],
      maxToolCalls: 2,
      stateStore: await fx.open(),
    });
    const paused = await agent.invoke(
      { messages: [HumanMessage({ content: "Check" })] },
      { threadId: "t" },
    );
    expect(paused.interrupts.map((i) => i.key)).toEqual(["1:0#c1"]);
    const done = await agent.invoke(null, { threadId: "t", resume: { "1:0#c1": "A-1" } });
    // c1 counted once (not again on resume), c2 is the second call, c3 is over the budget.
    expect(noIds(chat.requests[2]!.messages.slice(-2))).toEqual([
      ToolMessage({ content: '{"result":"shipped"}', toolCallId: "c2", name: "lookup" }),
      ToolMessage({
        content: "Tool call limit reached: at most 2 tool calls per run",
        toolCallId: "c3",
        name: "lookup",
      }),
    ]);
    expect(done.state.finalText).toBe("Looked up one.");
    expect(c.runs).toEqual([
      { tool: "ask", args: { question: "Which order?" } },
      { tool: "ask", args: { question: "Which order?" } },
      { tool: "lookup", args: { orderId: "A-1" } },
    ]);
    // A new run on the thread has its own budget.
    expect(await runAgent(agent, "Again", { threadId: "t" })).toBe("Looked up.");
    expect(c.count("lookup")).toBe(2);
  });
});

describeStores("approval", (fx) => {
  it("approves one call, edits one and rejects one of the same turn; the next request is valid", async () => {
    const c = counter();
    const { refund } = refundTools(c);
    const chat = new ScriptedChat([
      {
        content: "Refunding three orders.",
        toolCalls: [
          call("c1", "refund", { orderId: "A-1", amount: 10 }),
          call("c2", "refund", { orderId: "A-2", amount: 500 }),
          call("c3", "refund", { orderId: "A-3", amount: 900 }),
        ],
      },
      "Refunded A-1 and A-2; A-3 was refused.",
    ]);
    const agent = buildReactAgent(chat, {
      tools: [refund],
      systemPrompt: "You handle refunds.",
      middleware: [ApprovalMiddleware({ tools: ["refund"], question: "Refund?" })],
      stateStore: await fx.open(),
    });
    const e = (await caught(() =>
      runAgent(agent, "Refund A-1, A-2 and A-3", { threadId: "r" }),
    )) as RunInterruptedError;
    expect(e).toBeInstanceOf(RunInterruptedError);
    expect(e.interrupts).toEqual(
      [
        ["c1", "A-1", 10],
        ["c2", "A-2", 500],
        ["c3", "A-3", 900],
      ].map(([id, orderId, amount]) => ({
        key: `1:0#${id}`,
        value: {
          tool: "refund",
          arguments: { orderId, amount },
          toolCallId: id,
          question: "Refund?",
        },
        node: "act",
        taskId: "1:0",
      })),
    );
    expect(c.runs).toEqual([]);

    const done = await agent.invoke(null, {
      threadId: "r",
      resume: {
        "1:0#c1": "yes",
        "1:0#c2": { approved: true, arguments: { orderId: "A-2", amount: 50 } },
        "1:0#c3": { approved: false, reason: "amount too high" },
      },
    });
    expect(done.status).toBe("completed");
    expect(c.runs).toEqual([
      { tool: "refund", args: { orderId: "A-1", amount: 10 } },
      { tool: "refund", args: { orderId: "A-2", amount: 50 } },
    ]);
    const toolMessages = [
      ToolMessage({ content: '{"result":"refunded 10 on A-1"}', toolCallId: "c1", name: "refund" }),
      ToolMessage({
        content: '{"result":"refunded 50 on A-2"}',
        toolCallId: "c2",
        name: "refund",
        arguments: { orderId: "A-2", amount: 50 },
      }),
      ToolMessage({
        content: "Tool call denied by a person: amount too high",
        toolCallId: "c3",
        name: "refund",
      }),
    ];
    expect(chat.requests).toHaveLength(2);
    const last = chat.requests.at(-1)!;
    expect(noIds(last.messages)).toEqual([
      { type: "system", id: null, content: "You handle refunds." },
      HumanMessage({ content: "Refund A-1, A-2 and A-3" }),
      AIMessage({
        content: "Refunding three orders.",
        finishReason: "tool_calls",
        toolCalls: [
          {
            id: "c1",
            name: "refund",
            arguments: { orderId: "A-1", amount: 10 },
            argumentsError: null,
          },
          {
            id: "c2",
            name: "refund",
            arguments: { orderId: "A-2", amount: 500 },
            argumentsError: null,
          },
          {
            id: "c3",
            name: "refund",
            arguments: { orderId: "A-3", amount: 900 },
            argumentsError: null,
          },
        ],
      }),
      ...toolMessages,
    ]);
    // The thread keeps the same, consistent history: every call has its result.
    const state = (await agent.getState("r")).state;
    expect(noIds(state.messages.slice(2, 5))).toEqual(toolMessages);
    expect(state.toolCalls).toEqual([]);
    expect(state.finalText).toBe("Refunded A-1 and A-2; A-3 was refused.");
  });

  it("answers approvals one at a time: an approved call runs once, the others ask again", async () => {
    const c = counter();
    const { refund, lookup } = refundTools(c);
    const chat = new ScriptedChat([
      {
        toolCalls: [
          call("c1", "refund", { orderId: "A-1", amount: 10 }),
          call("c2", "lookup", { orderId: "A-2" }),
          call("c3", "refund", { orderId: "A-3", amount: 30 }),
        ],
      },
      "ok",
    ]);
    const agent = buildReactAgent(chat, {
      tools: [refund, lookup],
      middleware: [ApprovalMiddleware({ tools: ["refund"] })],
      stateStore: await fx.open(),
    });
    const r1 = await agent.invoke(
      { messages: [HumanMessage({ content: "go" })] },
      { threadId: "p" },
    );
    expect(r1.interrupts.map((i) => i.key)).toEqual(["1:0#c1", "1:0#c3"]);
    expect(c.runs).toEqual([{ tool: "lookup", args: { orderId: "A-2" } }]);
    const r2 = await agent.invoke(null, { threadId: "p", resume: { "1:0#c1": true } });
    expect(r2.status).toBe("interrupted");
    expect(r2.interrupts.map((i) => i.key)).toEqual(["1:0#c3"]);
    const r3 = await agent.invoke(null, { threadId: "p", resume: { "1:0#c3": "no" } });
    expect(r3.status).toBe("completed");
    expect(c.runs).toEqual([
      { tool: "lookup", args: { orderId: "A-2" } },
      { tool: "refund", args: { orderId: "A-1", amount: 10 } },
    ]);
    expect(noIds(chat.requests.at(-1)!.messages.slice(-3))).toEqual([
      ToolMessage({ content: '{"result":"refunded 10 on A-1"}', toolCallId: "c1", name: "refund" }),
      ToolMessage({ content: '{"result":"shipped"}', toolCallId: "c2", name: "lookup" }),
      ToolMessage({ content: "Tool call denied by a person", toolCallId: "c3", name: "refund" }),
    ]);
  });

  it("an invalid answer fails the run with the ValueError as cause; a valid one then resumes", async () => {
    const c = counter();
    const { refund } = refundTools(c);
    const chat = new ScriptedChat([
      { toolCalls: [call("c1", "refund", { orderId: "A-1", amount: 10 })] },
      "ok",
    ]);
    const agent = buildReactAgent(chat, {
      tools: [refund],
      middleware: [ApprovalMiddleware({ tools: ["refund"] })],
      stateStore: await fx.open(),
    });
    await agent.invoke({ messages: [HumanMessage({ content: "go" })] }, { threadId: "v" });
    const e = await caught(() =>
      agent.invoke(null, { threadId: "v", resume: { "1:0#c1": { approve: true } } }),
    );
    expect(e.cause).toBeInstanceOf(ValueError);
    expect((e.cause as Error).message).toBe(
      'ApprovalMiddleware: invalid answer for tool "refund" (call "c1"): key "approved" must be true or false; answer "yes", "no", true, false, { approved: true }, { approved: true, arguments: { ... } } or { approved: false, reason: "..." }',
    );
    expect(c.runs).toEqual([]);
    const snap = await agent.getState("v");
    expect(snap.status).toBe("failed");
    expect(snap.interrupts.map((i) => i.key)).toEqual(["1:0#c1"]);
    const done = await agent.invoke(null, { threadId: "v", resume: { "1:0#c1": "yes" } });
    expect(done.status).toBe("completed");
    expect(c.runs).toEqual([{ tool: "refund", args: { orderId: "A-1", amount: 10 } }]);
  });

  it("a refused answer leaves no trace: the other answers of the same task are not kept, and new ones are used", async () => {
    const c = counter();
    const { refund } = refundTools(c);
    const chat = new ScriptedChat([
      {
        toolCalls: [
          call("c1", "refund", { orderId: "A-1", amount: 10 }),
          call("c2", "refund", { orderId: "A-2", amount: 500 }),
        ],
      },
      "Refunded A-1; A-2 was refused.",
    ]);
    const agent = buildReactAgent(chat, {
      tools: [refund],
      middleware: [ApprovalMiddleware({ tools: ["refund"] })],
      stateStore: await fx.open(),
    });
    await agent.invoke({ messages: [HumanMessage({ content: "go" })] }, { threadId: "t" });
    const before = await agent.getState("t");
    // c1 approved with arguments the tool's schema refuses; c2 denied with reason "first".
    await expectError(
      () =>
        agent.invoke(null, {
          threadId: "t",
          resume: {
            "1:0#c1": { approved: true, arguments: { orderId: "A-1", amount: "ten" } },
            "1:0#c2": { approved: false, reason: "first" },
          },
        }),
      ToolExecutionError,
      'Invalid arguments for tool "refund": amount: Invalid input: expected number, received string (call "c1")',
    );
    expect(c.runs).toEqual([]);
    // The thread is as it was before the refused resume: the same pending interrupts, no answers.
    const after = await agent.getState("t");
    expect(after.status).toBe("failed");
    expect(after.interrupts).toEqual(
      [
        ["c1", "A-1", 10],
        ["c2", "A-2", 500],
      ].map(([id, orderId, amount]) => ({
        key: `1:0#${id}`,
        value: {
          tool: "refund",
          arguments: { orderId, amount },
          toolCallId: id,
          question: `Run tool "refund" with {"orderId":"${orderId}","amount":${amount}}?`,
        },
        node: "act",
        taskId: "1:0",
      })),
    );
    expect(after.interrupts).toEqual(before.interrupts);
    expect(after.state).toEqual(before.state);
    // Answering only c1 now: c2 is asked again (its refused-resume answer was not kept).
    const again = await agent.invoke(null, { threadId: "t", resume: { "1:0#c1": "yes" } });
    expect(again.status).toBe("interrupted");
    expect(again.interrupts.map((i) => i.key)).toEqual(["1:0#c2"]);
    const done = await agent.invoke(null, {
      threadId: "t",
      resume: { "1:0#c2": { approved: false, reason: "second" } },
    });
    expect(done.status).toBe("completed");
    expect(c.runs).toEqual([{ tool: "refund", args: { orderId: "A-1", amount: 10 } }]);
    expect(noIds(chat.requests.at(-1)!.messages.slice(-2))).toEqual([
      ToolMessage({ content: '{"result":"refunded 10 on A-1"}', toolCallId: "c1", name: "refund" }),
      ToolMessage({
        content: "Tool call denied by a person: second",
        toolCallId: "c2",
        name: "refund",
      }),
    ]);
  });

  it("re-answering both calls after a refused resume uses the new answers", async () => {
    const c = counter();
    const { refund } = refundTools(c);
    const chat = new ScriptedChat([
      {
        toolCalls: [
          call("c1", "refund", { orderId: "A-1", amount: 10 }),
          call("c2", "refund", { orderId: "A-2", amount: 500 }),
        ],
      },
      "done",
    ]);
    const agent = buildReactAgent(chat, {
      tools: [refund],
      middleware: [ApprovalMiddleware({ tools: ["refund"] })],
      stateStore: await fx.open(),
    });
    await agent.invoke({ messages: [HumanMessage({ content: "go" })] }, { threadId: "u" });
    const refused = await caught(() =>
      agent.invoke(null, {
        threadId: "u",
        resume: {
          "1:0#c1": { approved: true, arguments: { orderId: "A-1", amount: -1, extra: 1 } },
          "1:0#c2": { approved: false, reason: "first" },
        },
      }),
    );
    expect(refused).toBeInstanceOf(ToolExecutionError);
    const done = await agent.invoke(null, {
      threadId: "u",
      resume: {
        "1:0#c1": { approved: true, arguments: { orderId: "A-1", amount: 5 } },
        "1:0#c2": { approved: false, reason: "second" },
      },
    });
    expect(done.status).toBe("completed");
    expect(c.runs).toEqual([{ tool: "refund", args: { orderId: "A-1", amount: 5 } }]);
    const state = (await agent.getState("u")).state;
    expect(noIds(state.messages.slice(2, 4))).toEqual([
      ToolMessage({
        content: '{"result":"refunded 5 on A-1"}',
        toolCallId: "c1",
        name: "refund",
        arguments: { orderId: "A-1", amount: 5 },
      }),
      ToolMessage({
        content: "Tool call denied by a person: second",
        toolCallId: "c2",
        name: "refund",
      }),
    ]);
  });
});

describeStores("parallel interrupts", (fx) => {
  it("several tasks of one superstep each get their own key and answer; finished ones never run again", async () => {
    const State = defineState({
      out: reducer(z.array(z.string()).default([]), (a, b) => [...a, ...b].sort()),
    });
    type S = typeof State.State;
    const runs: string[] = [];
    const asker = (name: string) =>
      node(
        (_s: S, ctx) => {
          runs.push(name);
          const answer = ctx.interrupt<string>(`${name}?`);
          return { out: [`${name}=${answer}`] };
        },
        { name },
      );
    const quiet = node(
      (_s: S) => {
        runs.push("quiet");
        return { out: ["quiet"] };
      },
      { name: "quiet" },
    );
    const a = asker("a");
    const b = asker("b");
    const fan = node(() => ({}), { name: "fan" });
    const graph = new Graph(State, { stateStore: await fx.open() }).flow(
      START.to(fan),
      fan.to([a, b, quiet]),
      a.to(END),
      b.to(END),
      quiet.to(END),
    );
    const r1 = await graph.invoke({}, { threadId: "f" });
    expect(r1.status).toBe("interrupted");
    expect(r1.interrupts).toEqual([
      { key: "1:0#0", value: "a?", node: "a", taskId: "1:0" },
      { key: "1:1#0", value: "b?", node: "b", taskId: "1:1" },
    ]);
    expect(runs).toEqual(["a", "b", "quiet"]);
    const r2 = await graph.invoke(null, { threadId: "f", resume: { "1:1#0": "B" } });
    expect(r2.interrupts.map((i) => i.key)).toEqual(["1:0#0"]);
    expect(runs).toEqual(["a", "b", "quiet", "a", "b"]);
    const r3 = await graph.invoke(null, { threadId: "f", resume: { "1:0#0": "A" } });
    expect(r3.status).toBe("completed");
    expect(r3.state.out).toEqual(["a=A", "b=B", "quiet"]);
    expect(runs).toEqual(["a", "b", "quiet", "a", "b", "a"]);
    // A later run's interrupts have new keys: an old answer is never taken for them.
    const r4 = await graph.invoke({}, { threadId: "f" });
    expect(r4.interrupts.map((i) => i.key)).toEqual(["3:0#0", "3:1#0"]);
  });

  it("a resume that fails is undone where it resumed: paused tasks ask again, earlier answers stay", async () => {
    const State = defineState({
      out: reducer(z.array(z.string()).default([]), (a, b) => [...a, ...b].sort()),
    });
    type S = typeof State.State;
    const runs: string[] = [];
    // a asks twice in a row; b once and refuses an answer that is not a name.
    const a = node(
      (_s: S, ctx) => {
        runs.push("a");
        const first = ctx.interrupt<string>("a first?");
        const second = ctx.interrupt<string>("a second?");
        return { out: [`a=${first},${second}`] };
      },
      { name: "a" },
    );
    const b = node(
      (_s: S, ctx) => {
        runs.push("b");
        const answer = ctx.interrupt<string>("b?");
        if (!/^[A-Z]/.test(answer)) throw new ValueError(`b: "${answer}" is not a name`);
        return { out: [`b=${answer}`] };
      },
      { name: "b" },
    );
    const quiet = node(
      (_s: S) => {
        runs.push("quiet");
        return { out: ["quiet"] };
      },
      { name: "quiet" },
    );
    const fan = node(() => ({}), { name: "fan" });
    const graph = new Graph(State, { stateStore: await fx.open() }).flow(
      START.to(fan),
      fan.to([a, b, quiet]),
      a.to(END),
      b.to(END),
      quiet.to(END),
    );
    await graph.invoke({}, { threadId: "g" });
    // a's first question answered: a asks its second one.
    const r2 = await graph.invoke(null, { threadId: "g", resume: { "1:0#0": "A1" } });
    expect(r2.interrupts).toEqual([
      { key: "1:0#1", value: "a second?", node: "a", taskId: "1:0" },
      { key: "1:1#0", value: "b?", node: "b", taskId: "1:1" },
    ]);
    // a's second answer is fine (a finishes), b refuses its answer: the run fails, and the
    // superstep is as it was before it: a's result dropped, both questions pending again.
    await expectError(
      () => graph.invoke(null, { threadId: "g", resume: { "1:0#1": "A2", "1:1#0": "bob" } }),
      ValueError,
      'b: "bob" is not a name',
    );
    const snap = await graph.getState("g");
    expect(snap.status).toBe("failed");
    expect(snap.interrupts).toEqual(r2.interrupts);
    expect(snap.state).toEqual({ out: [] });
    // a's first answer (from a run that paused, not failed) is still the one a gets.
    const r4 = await graph.invoke(null, { threadId: "g", resume: { "1:1#0": "Bob" } });
    expect(r4.interrupts).toEqual([{ key: "1:0#1", value: "a second?", node: "a", taskId: "1:0" }]);
    const r5 = await graph.invoke(null, { threadId: "g", resume: { "1:0#1": "A3" } });
    expect(r5.status).toBe("completed");
    expect(r5.state.out).toEqual(["a=A1,A3", "b=Bob", "quiet"]);
    expect(runs).toEqual(["a", "b", "quiet", "a", "b", "a", "b", "a", "b", "a"]);
  });

  it("several tool calls of one turn that interrupt each get their own key and answer", async () => {
    const c = counter();
    const { ask } = refundTools(c);
    const chat = new ScriptedChat([
      {
        toolCalls: [
          call("x", "ask", { question: "Name?" }),
          call("y", "ask", { question: "City?" }),
        ],
      },
      "Thanks.",
    ]);
    const agent = buildReactAgent(chat, { tools: [ask], stateStore: await fx.open() });
    const r1 = await agent.invoke(
      { messages: [HumanMessage({ content: "hi" })] },
      { threadId: "q" },
    );
    expect(r1.interrupts).toEqual([
      { key: "1:0#x", value: { question: "Name?" }, node: "act", taskId: "1:0" },
      { key: "1:0#y", value: { question: "City?" }, node: "act", taskId: "1:0" },
    ]);
    const r2 = await agent.invoke(null, {
      threadId: "q",
      resume: { "1:0#x": "Ada", "1:0#y": "Paris" },
    });
    expect(r2.status).toBe("completed");
    expect(noIds(chat.requests.at(-1)!.messages.slice(-2))).toEqual([
      ToolMessage({ content: '{"result":"person said Ada"}', toolCallId: "x", name: "ask" }),
      ToolMessage({ content: '{"result":"person said Paris"}', toolCallId: "y", name: "ask" }),
    ]);
  });
});

describeStores("an approval inside a sub-agent", (fx) => {
  it("pauses the parent under <task>/<child key> and resumes the child where it paused", async () => {
    const c = counter();
    const { refund, lookup } = refundTools(c);
    const chat = new ScriptedChat([
      {
        toolCalls: [
          call("c1", "lookup", { orderId: "A-1" }),
          call("c2", "refund", { orderId: "A-1", amount: 10 }),
        ],
      },
      "Refunded.",
    ]);
    const child = buildReactAgent(chat, {
      tools: [refund, lookup],
      middleware: [ApprovalMiddleware({ tools: ["refund"], question: "Refund?" })],
    });
    const Parent = defineState({
      request: z.string().default(""),
      answer: z.string().nullable().default(null),
    });
    type P = typeof Parent.State;
    const support = subgraph<P, { finalText: string | null }>("support", child, {
      stateIn: (p) => ({ messages: [HumanMessage({ content: p.request })] }),
      stateOut: (s) => ({ answer: s.finalText }),
      childThread: "stable",
    });
    const graph = new Graph(Parent, { stateStore: await fx.open() }).flow(
      START.to(support),
      support.to(END),
    );
    const r1 = await graph.invoke({ request: "Refund A-1" }, { threadId: "p" });
    expect(r1.status).toBe("interrupted");
    expect(r1.interrupts).toEqual([
      {
        key: "0:0/1:0#c2",
        value: {
          tool: "refund",
          arguments: { orderId: "A-1", amount: 10 },
          toolCallId: "c2",
          question: "Refund?",
        },
        node: "support",
        taskId: "0:0",
      },
    ]);
    const r2 = await graph.invoke(null, { threadId: "p", resume: { "0:0/1:0#c2": "yes" } });
    expect(r2.status).toBe("completed");
    expect(r2.state.answer).toBe("Refunded.");
    // The child resumed in its tool step: one model call per turn, lookup ran once.
    expect(chat.requests).toHaveLength(2);
    expect(c.runs).toEqual([
      { tool: "lookup", args: { orderId: "A-1" } },
      { tool: "refund", args: { orderId: "A-1", amount: 10 } },
    ]);
  });
});
