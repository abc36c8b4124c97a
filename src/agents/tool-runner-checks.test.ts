import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Message } from "../chat/index.js";
import { GraphConfigError, ValueError } from "../errors/index.js";
import { defineState, messagesField } from "../state/define-state.js";
import { tool } from "../tools/tool.js";
import {
  call,
  failure,
  getStatus,
  oneNode,
  pending,
  rejection,
  thrown,
  toolMessages,
} from "./tool-runner.fixture.js";
import { toolRunner } from "./tool-runner.js";

describe("toolRunner: checks when it is built", () => {
  it("refuses two different tools with one name, and the same tool twice", () => {
    const other = tool(() => 1, { name: "get_status", description: "Another." });
    expect(thrown(() => toolRunner("act", { tools: [getStatus, other] }))).toEqual(
      failure(
        GraphConfigError,
        'toolRunner "act": two different tools are named "get_status"; tool names must be unique',
      ),
    );
    expect(thrown(() => toolRunner("act", { tools: [getStatus, getStatus] }))).toEqual(
      failure(
        GraphConfigError,
        'toolRunner "act": tool "get_status" is listed twice; list each tool once',
      ),
    );
  });

  it("refuses a toolErrors policy that is neither raise, return nor a function", () => {
    expect(thrown(() => toolRunner("act", { tools: [], toolErrors: "ignore" as "raise" }))).toEqual(
      failure(
        ValueError,
        'toolRunner "act": toolErrors must be "raise", "return" or a function (error) => string, got "ignore"',
      ),
    );
  });
});

describe("toolRunner: checks when it runs, before any tool runs", () => {
  it("refuses a messages field that does not use addMessages", async () => {
    let ran = 0;
    const counted = tool(
      () => {
        ran++;
        return 1;
      },
      { name: "counted", description: "Counts." },
    );
    const State = defineState({
      messages: z.array(z.custom<Message>()).default([]),
      toolCalls: z.array(z.unknown()).default([]),
    });
    const graph = oneNode(State, toolRunner("act", { tools: [counted] }));
    expect(await rejection(graph.invoke({ toolCalls: [call("c1", "counted")] }))).toEqual(
      failure(
        GraphConfigError,
        'toolRunner "act" of graph "g": its messages field "messages" does not use addMessages; declare it with messagesField()',
      ),
    );
    expect(ran).toBe(0);
  });

  it("refuses a toolCallsField that is not declared", async () => {
    const State = defineState({ messages: messagesField() });
    const graph = oneNode(State, toolRunner("act", { tools: [], toolCallsField: "calls" }));
    expect(await rejection(graph.invoke({}))).toEqual(
      failure(
        GraphConfigError,
        'toolRunner "act" of graph "g" writes state field "calls" (toolCallsField), which the graph\'s state does not declare (declared fields: messages); declare it or set toolCallsField',
      ),
    );
  });

  it("uses renamed fields", async () => {
    const State = defineState({
      history: messagesField(),
      calls: z.array(z.unknown()).default([]),
    });
    const graph = oneNode(
      State,
      toolRunner("act", { tools: [getStatus], messagesField: "history", toolCallsField: "calls" }),
    );
    const { state } = await graph.invoke({ calls: [call("c1", "get_status", { orderId: "A-1" })] });
    expect(state.calls).toEqual([]);
    expect(toolMessages(state.history)).toEqual([
      {
        type: "tool",
        content: '{"result":"shipped"}',
        toolCallId: "c1",
        name: "get_status",
        arguments: null,
      },
    ]);
  });

  it("works on a plain-object state, writing the whole message list", async () => {
    const graph = oneNode(null, toolRunner("act", { tools: [getStatus] }));
    const { state } = await graph.invoke(pending(call("c1", "get_status", { orderId: "A-1" })));
    expect((state.messages as Message[]).map((m) => m.type)).toEqual(["human", "ai", "tool"]);
    expect(state.toolCalls).toEqual([]);
  });
});
