import { describe, expect, it } from "vitest";
import type { ToolCall } from "../chat/index.js";
import {
  ContextNotProvidedError,
  GraphConfigError,
  ToolExecutionError,
  ToolGroupExecutionError,
} from "../errors/index.js";
import { tool } from "../tools/tool.js";
import {
  call,
  failure,
  getStatus,
  LookupError,
  lookupOrder,
  oneNode,
  pending,
  rejection,
  runner,
  toolMessages,
} from "./tool-runner.fixture.js";
import { toolRunner } from "./tool-runner.js";

describe("toolRunner: failures", () => {
  it("raises ToolExecutionError for an unknown tool", async () => {
    const error = await rejection(
      runner([getStatus, lookupOrder]).invoke(pending(call("call_1", "x"))),
    );
    expect(error).toEqual(
      failure(
        ToolExecutionError,
        'Tool call "call_1" asked for unknown tool "x"; known tools: get_status, lookup_order',
      ),
    );
    expect(error).toMatchObject({ tool: "x", toolCallId: "call_1" });
  });

  it("raises ToolExecutionError for arguments that do not match the schema", async () => {
    const error = await rejection(
      runner([getStatus]).invoke(pending(call("call_1", "get_status", { orderId: 7 }))),
    );
    expect(error).toEqual(
      failure(
        ToolExecutionError,
        'Invalid arguments for tool "get_status": orderId: Invalid input: expected string, received number (call "call_1")',
      ),
    );
    expect((error as Error).cause).toBeInstanceOf(Error);
  });

  it("raises ToolExecutionError for unknown arguments and for argument text that is not a JSON object", async () => {
    const extra = await rejection(
      runner([getStatus]).invoke(pending(call("c1", "get_status", { orderId: "A-1", more: 1 }))),
    );
    expect(extra).toBeInstanceOf(ToolExecutionError);
    expect((extra as Error).message).toMatch(/^Invalid arguments for tool "get_status": /);
    const bad: ToolCall = {
      id: "c2",
      name: "get_status",
      arguments: {},
      argumentsError: "Tool arguments must be a JSON object, got an array",
    };
    expect(await rejection(runner([getStatus]).invoke(pending(bad)))).toEqual(
      failure(
        ToolExecutionError,
        'Invalid arguments for tool "get_status": Tool arguments must be a JSON object, got an array (call "c2")',
      ),
    );
  });

  it('"raise" wraps the tool\'s own exception in a ToolExecutionError with the original as cause', async () => {
    const error = await rejection(
      runner([lookupOrder]).invoke(pending(call("call_1", "lookup_order", { orderId: "B-7" }))),
    );
    expect(error).toEqual(
      failure(
        ToolExecutionError,
        'Tool "lookup_order" failed on call "call_1": LookupError: no order B-7',
      ),
    );
    expect((error as Error).cause).toBeInstanceOf(LookupError);
    expect(error).toMatchObject({ tool: "lookup_order", toolCallId: "call_1" });
  });

  it('"raise" with several failures raises ToolGroupExecutionError with each, in call order', async () => {
    const error = (await rejection(
      runner([lookupOrder, getStatus]).invoke(
        pending(
          call("c1", "lookup_order", { orderId: "B-7" }),
          call("c2", "get_status", { orderId: "A-1" }),
          call("c3", "nope"),
        ),
      ),
    )) as ToolGroupExecutionError;
    expect(error).toEqual(
      failure(
        ToolGroupExecutionError,
        '2 tool calls failed: Tool "lookup_order" failed on call "c1": LookupError: no order B-7 | Tool call "c3" asked for unknown tool "nope"; known tools: lookup_order, get_status',
      ),
    );
    expect(error.errors.map((e) => (e as ToolExecutionError).toolCallId)).toEqual(["c1", "c3"]);
  });

  it('"return" sends "Tool error: <type>: <message>" to the model', async () => {
    const { state } = await runner([lookupOrder], "return").invoke(
      pending(
        call("call_1", "lookup_order", { orderId: "B-7" }),
        call("call_2", "missing"),
        call("call_3", "lookup_order", {}),
      ),
    );
    expect(toolMessages(state.messages).map((m) => [m.toolCallId, m.name, m.content])).toEqual([
      ["call_1", "lookup_order", "Tool error: LookupError: no order B-7"],
      [
        "call_2",
        "missing",
        'Tool error: ToolExecutionError: Tool call "call_2" asked for unknown tool "missing"; known tools: lookup_order',
      ],
      [
        "call_3",
        "lookup_order",
        'Tool error: ToolExecutionError: Invalid arguments for tool "lookup_order": orderId: Invalid input: expected string, received undefined (call "call_3")',
      ],
    ]);
    expect(state.toolCalls).toEqual([]);
  });

  it('"return" names a class without its own name by its constructor, and a thrown non-error as Error', async () => {
    class QuotaExceeded extends Error {}
    const quota = tool(
      () => {
        throw new QuotaExceeded("too many");
      },
      { name: "quota", description: "Q." },
    );
    const str = tool(
      () => {
        throw "plain text";
      },
      { name: "str", description: "S." },
    );
    const { state } = await runner([quota, str], "return").invoke(
      pending(call("c1", "quota"), call("c2", "str")),
    );
    expect(toolMessages(state.messages).map((m) => m.content)).toEqual([
      "Tool error: QuotaExceeded: too many",
      "Tool error: Error: plain text",
    ]);
  });

  it("a function policy turns the error into the text the model gets", async () => {
    const seen: unknown[] = [];
    const policy = (error: Error) => {
      seen.push(error);
      return `Sorry: ${error.message}`;
    };
    const { state } = await runner([lookupOrder], policy).invoke(
      pending(call("c1", "lookup_order", { orderId: "B-7" }), call("c2", "nope")),
    );
    expect(toolMessages(state.messages).map((m) => m.content)).toEqual([
      "Sorry: no order B-7",
      'Sorry: Tool call "c2" asked for unknown tool "nope"; known tools: lookup_order',
    ]);
    // The policy sees the tool's own exception, and the ToolExecutionError for an unknown tool.
    expect(
      seen.map((e) => (e as Error).constructor).sort((a, b) => a.name.localeCompare(b.name)),
    ).toEqual([LookupError, ToolExecutionError]);
  });

  it("a function policy that returns no string raises TypeError", async () => {
    const policy = (() => 42) as unknown as (e: Error) => string;
    expect(
      await rejection(
        runner([lookupOrder], policy).invoke(pending(call("c1", "lookup_order", { orderId: "B" }))),
      ),
    ).toEqual(
      failure(
        TypeError,
        'toolRunner "act": the toolErrors function must return a string, got number',
      ),
    );
  });

  it("ContextNotProvidedError and GraphConfigError from a tool always propagate", async () => {
    const needsContext = tool((_args, ctx) => String(ctx.context), {
      name: "needs_context",
      description: "Reads the context.",
    });
    const misconfigured = tool(
      () => {
        throw new GraphConfigError("bad setup");
      },
      { name: "misconfigured", description: "M." },
    );
    const noContext = await rejection(
      runner([needsContext], "return").invoke(pending(call("c1", "needs_context"))),
    );
    expect(noContext).toBeInstanceOf(ContextNotProvidedError);
    expect((noContext as Error).message).toMatch(
      /^Tool "needs_context" called by node "act" of graph "g" read ctx.context, but the run was started without one/,
    );
    expect(
      await rejection(
        runner([misconfigured], () => "handled").invoke(pending(call("c1", "misconfigured"))),
      ),
    ).toEqual(failure(GraphConfigError, "bad setup"));
  });

  it("a call without a string id always raises", async () => {
    const noId = { name: "get_status", arguments: {} } as unknown as ToolCall;
    const graph = oneNode(null, toolRunner("act", { tools: [getStatus], toolErrors: "return" }));
    expect(await rejection(graph.invoke({ messages: [], toolCalls: [noId] }))).toEqual(
      failure(
        ToolExecutionError,
        'toolRunner "act": tool call 0 in "toolCalls" (tool "get_status") has no string id, so no result can answer it',
      ),
    );
  });
});
