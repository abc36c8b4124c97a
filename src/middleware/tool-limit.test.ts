import { describe, expect, it } from "vitest";
import { caught, expectError } from "../../test/helpers.js";
import { ToolDeniedError, ValueError } from "../errors/index.js";
import { TaskContext } from "../graph/context.js";
import { callTool } from "../tools/call-tool.js";
import { tool } from "../tools/tool.js";
import { ToolContext } from "../tools/tool-context.js";
import { ToolLimitMiddleware } from "./tool-limit.js";

let calls = 0;
const ping = tool(
  () => {
    calls++;
    return "pong";
  },
  { name: "ping", description: "Ping." },
);

/** The tool context of call `callId` in task `taskId` of a run on `threadId`. */
function ctxFor(
  limit: ToolLimitMiddleware,
  opts: {
    threadId: string | null;
    runId: string;
    originRunId?: string;
    taskId?: string;
    callId: string | null;
  },
): ToolContext {
  const node = new TaskContext(
    "g",
    opts.runId,
    opts.runId,
    opts.originRunId ?? opts.runId,
    opts.threadId,
    "main",
    0,
    "act",
    opts.taskId ?? "1:0",
    [limit],
    null,
    null,
    null,
    [],
    {},
    {},
    new AbortController().signal,
    {
      emit: () => {},
      wants: () => false,
      saveCache: async () => {},
      forward: () => {},
      subAgents: () => {
        throw new Error("no sub-agents in this test");
      },
    },
    { value: undefined, given: false },
  );
  return ToolContext.fromNodeContext(node, {}, { toolCallId: opts.callId });
}

describe("ToolLimitMiddleware", () => {
  it("allows maxToolCalls calls, then denies with the limit as the reason", async () => {
    const limit = ToolLimitMiddleware({ maxToolCalls: 2 });
    expect(limit.name).toBe("ToolLimitMiddleware");
    expect(limit.maxToolCalls).toBe(2);
    calls = 0;
    const run = (callId: string) =>
      callTool(ping, {}, ctxFor(limit, { threadId: "t1", runId: "r1", callId }));
    expect((await run("c1")).value).toBe("pong");
    expect((await run("c2")).value).toBe("pong");
    const e = await expectError(
      () => run("c3"),
      ToolDeniedError,
      'Tool call limit reached: at most 2 tool calls per run (tool "ping" was not called)',
    );
    expect(e.reason).toBe("Tool call limit reached: at most 2 tool calls per run");
    expect(e.tool).toBe("ping");
    expect(e.toolCallId).toBe("c3");
    await expectError(() => run("c4"), ToolDeniedError, e.message);
    expect(calls).toBe(2);
    expect(limit.used("r1")).toBe(2);
  });

  it("says 'call' for a budget of one and denies everything with zero", async () => {
    const one = ToolLimitMiddleware({ maxToolCalls: 1 });
    const ctx = ToolContext.empty({ middleware: [one] });
    await callTool(ping, {}, ctx);
    const e = (await caught(() => callTool(ping, {}, ctx))) as ToolDeniedError;
    expect(e.reason).toBe("Tool call limit reached: at most 1 tool call per run");
    const zero = ToolLimitMiddleware({ maxToolCalls: 0 });
    const z = (await caught(() =>
      callTool(ping, {}, ToolContext.empty({ middleware: [zero], toolCallId: "c1" })),
    )) as ToolDeniedError;
    expect(z).toBeInstanceOf(ToolDeniedError);
    expect(z.reason).toBe("Tool call limit reached: at most 0 tool calls per run");
    expect(z.toolCallId).toBe("c1");
  });

  it("counts per run and its resumes; a new run on the thread has its own budget", async () => {
    const limit = ToolLimitMiddleware({ maxToolCalls: 2 });
    const run = (
      threadId: string,
      runId: string,
      originRunId: string,
      taskId: string,
      callId: string,
    ) => callTool(ping, {}, ctxFor(limit, { threadId, runId, originRunId, taskId, callId }));
    await run("t1", "r1", "r1", "1:0", "c1");
    // the resume is a new run on the same thread that continues r1
    await run("t1", "r2", "r1", "3:0", "c2");
    await expectError(
      () => run("t1", "r2", "r1", "3:0", "c3"),
      ToolDeniedError,
      'Tool call limit reached: at most 2 tool calls per run (tool "ping" was not called)',
    );
    // a new run (new input) on the same thread starts a fresh budget
    expect((await run("t1", "r4", "r4", "5:0", "c9")).value).toBe("pong");
    // another thread has its own budget
    expect((await run("t2", "r3", "r3", "1:0", "c1")).value).toBe("pong");
    expect([limit.used("r1"), limit.used("r3"), limit.used("r4"), limit.used("nope")]).toEqual([
      2, 1, 1, 0,
    ]);
  });

  it("counts per run id when there is no thread", async () => {
    const limit = ToolLimitMiddleware({ maxToolCalls: 1 });
    const run = (runId: string, callId: string) =>
      callTool(ping, {}, ctxFor(limit, { threadId: null, runId, callId }));
    await run("r1", "c1");
    await run("r2", "c1");
    await expectError(
      () => run("r1", "c2"),
      ToolDeniedError,
      'Tool call limit reached: at most 1 tool call per run (tool "ping" was not called)',
    );
    expect([limit.used("r1"), limit.used("r2")]).toEqual([1, 1]);
  });

  it("does not count a tool call twice when it runs again on resume", async () => {
    const limit = ToolLimitMiddleware({ maxToolCalls: 1 });
    const run = (runId: string, callId: string) =>
      callTool(
        ping,
        {},
        ctxFor(limit, { threadId: "t", runId, originRunId: "r1", taskId: "2:0", callId }),
      );
    await run("r1", "c1");
    expect((await run("r2", "c1")).value).toBe("pong");
    expect(limit.used("r1")).toBe(1);
    await expectError(
      () => run("r2", "c2"),
      ToolDeniedError,
      'Tool call limit reached: at most 1 tool call per run (tool "ping" was not called)',
    );
    // a denied call stays denied on resume, and is not counted again
    await expectError(
      () => run("r3", "c2"),
      ToolDeniedError,
      'Tool call limit reached: at most 1 tool call per run (tool "ping" was not called)',
    );
    expect(limit.used("r1")).toBe(1);
  });

  it("tells apart equal tool call ids of different tasks", async () => {
    const limit = ToolLimitMiddleware({ maxToolCalls: 1 });
    await callTool(
      ping,
      {},
      ctxFor(limit, { threadId: "t", runId: "r1", taskId: "1:0", callId: "call_1" }),
    );
    await expectError(
      () =>
        callTool(
          ping,
          {},
          ctxFor(limit, {
            threadId: "t",
            runId: "r2",
            originRunId: "r1",
            taskId: "3:0",
            callId: "call_1",
          }),
        ),
      ToolDeniedError,
      'Tool call limit reached: at most 1 tool call per run (tool "ping" was not called)',
    );
  });

  it("counts parallel calls in the order they start", async () => {
    const limit = ToolLimitMiddleware({ maxToolCalls: 2 });
    const results = await Promise.allSettled(
      ["c1", "c2", "c3"].map((id) =>
        callTool(ping, {}, ctxFor(limit, { threadId: "t", runId: "r", callId: id })),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected"]);
    expect(((results[2] as PromiseRejectedResult).reason as ToolDeniedError).toolCallId).toBe("c3");
  });

  it("runs before later middleware, which denied calls never reach", async () => {
    const limit = ToolLimitMiddleware({ maxToolCalls: 0 });
    const seen: string[] = [];
    const ctx = ToolContext.empty({
      middleware: [limit, { beforeTool: () => void seen.push("later") }],
    });
    await caught(() => callTool(ping, {}, ctx));
    expect(seen).toEqual([]);
  });

  it("raises ValueError for a budget that is not a non-negative integer", async () => {
    for (const [bad, shown] of [
      [-1, "-1"],
      [1.5, "1.5"],
      [Number.NaN, "NaN"],
      [Number.POSITIVE_INFINITY, "Infinity"],
      ["3", "string"],
      [undefined, "undefined"],
    ] as const) {
      await expectError(
        () => ToolLimitMiddleware({ maxToolCalls: bad as number }),
        ValueError,
        `ToolLimitMiddleware: maxToolCalls must be a non-negative integer, got ${shown}`,
      );
    }
    await expectError(
      () => ToolLimitMiddleware(undefined as never),
      ValueError,
      "ToolLimitMiddleware: maxToolCalls must be a non-negative integer, got undefined",
    );
  });
});
