import { describe, expect, it } from "vitest";
import { caught, expectError } from "../../test/helpers.js";
import { HumanMessage } from "../chat/messages.js";
import { ChatRequest, ChatResponse } from "../chat/types.js";
import { TaskContext } from "../graph/context.js";
import { tool } from "../tools/tool.js";
import { ToolContext } from "../tools/tool-context.js";
import {
  hasHook,
  middlewareName,
  middlewareTools,
  runAfterModel,
  runBeforeModel,
  runBeforeTool,
  runOnToolError,
} from "./run-hooks.js";
import type { ModelMiddlewareContext, ToolMiddlewareContext } from "./types.js";

const nodeCtx = new TaskContext(
  "g",
  "r",
  "r",
  "r",
  null,
  "main",
  0,
  "think",
  "0:0",
  [],
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
const mctx: ModelMiddlewareContext = { model: "scripted", node: nodeCtx, state: {} };
const ping = tool(() => "pong", { name: "ping", description: "Ping." });
const tctx: ToolMiddlewareContext = {
  tool: ping,
  toolCallId: "c1",
  toolContext: ToolContext.empty(),
};
const request = ChatRequest({ messages: [HumanMessage({ content: "hi" })] });

describe("middlewareName", () => {
  it("uses name, then class name, then the index", () => {
    class Audit {}
    expect(middlewareName({ name: "limit" }, 0)).toBe("limit");
    expect(middlewareName(new Audit(), 1)).toBe("Audit");
    expect(middlewareName({}, 2)).toBe("#2");
    expect(middlewareName(null, 3)).toBe("#3");
  });
});

describe("runBeforeModel", () => {
  it("runs hooks in order, each seeing the previous replacement; nothing keeps the request", async () => {
    const log: string[] = [];
    const out = await runBeforeModel(
      [
        {
          beforeModel(r: ChatRequest, c: ModelMiddlewareContext) {
            log.push(`a ${r.messages.length} ${c.model}`);
            return { ...r, toolChoice: "none" };
          },
        },
        { afterModel: () => undefined },
        null,
        {
          async beforeModel(r: ChatRequest) {
            log.push(`b ${r.toolChoice}`);
          },
        },
        {
          beforeModel(r: ChatRequest) {
            log.push(`c ${r.toolChoice}`);
            return null;
          },
        },
      ],
      request,
      mctx,
    );
    expect(out).toEqual({ ...request, toolChoice: "none" });
    expect(log).toEqual(["a 1 scripted", "b none", "c none"]);
  });

  it("returns the same request when no hook replaces it", async () => {
    expect(await runBeforeModel([], request, mctx)).toBe(request);
  });

  it("calls hooks as methods (this is the middleware)", async () => {
    class Prefix {
      text = "sys";
      beforeModel(r: ChatRequest): ChatRequest {
        return { ...r, outputSchema: { title: this.text } };
      }
    }
    expect((await runBeforeModel([new Prefix()], request, mctx)).outputSchema).toEqual({
      title: "sys",
    });
  });

  it("refuses a result that is not a full ChatRequest", async () => {
    await expectError(
      () =>
        runBeforeModel([{ name: "trim", beforeModel: () => ({ messages: [] }) }], request, mctx),
      TypeError,
      "middleware trim beforeModel returned an object, not a ChatRequest { messages, tools, toolChoice, outputSchema }; return a changed copy of the request, or nothing to keep it",
    );
    await expectError(
      () => runBeforeModel([{}, { beforeModel: () => "x" }], request, mctx),
      TypeError,
      'middleware #1 beforeModel returned a string ("x"), not a ChatRequest { messages, tools, toolChoice, outputSchema }; return a changed copy of the request, or nothing to keep it',
    );
  });

  it("propagates a hook's error", async () => {
    const boom = new Error("boom");
    const e = await caught(() =>
      runBeforeModel(
        [
          {
            beforeModel: () => {
              throw boom;
            },
          },
        ],
        request,
        mctx,
      ),
    );
    expect(e).toBe(boom);
  });
});

describe("runAfterModel", () => {
  const response = ChatResponse({ content: "hello" });

  it("replaces the response and fills the fields a hook leaves out", async () => {
    const out = await runAfterModel(
      [
        { afterModel: (r: ChatResponse) => ({ content: `${r.content}!`, toolCalls: [] }) },
        { afterModel: () => undefined },
      ],
      response,
      mctx,
    );
    expect(out).toEqual(ChatResponse({ content: "hello!" }));
    expect(await runAfterModel([], response, mctx)).toBe(response);
  });

  it("normalizes tool calls of a replacement", async () => {
    const out = await runAfterModel(
      [{ afterModel: () => ({ content: null, toolCalls: [{ id: "c1", name: "ping" }] }) }],
      response,
      mctx,
    );
    expect(out.toolCalls).toEqual([
      { id: "c1", name: "ping", arguments: {}, argumentsError: null },
    ]);
  });

  it("refuses a result that is not a ChatResponse", async () => {
    await expectError(
      () => runAfterModel([{ name: "x", afterModel: () => ({ text: "hi" }) }], response, mctx),
      TypeError,
      "middleware x afterModel returned an object, not a ChatResponse { content, toolCalls, ... }; return a changed copy of the response, or nothing to keep it",
    );
    await expectError(
      () => runAfterModel([{ afterModel: () => [response] }], response, mctx),
      TypeError,
      "middleware #0 afterModel returned an array, not a ChatResponse { content, toolCalls, ... }; return a changed copy of the response, or nothing to keep it",
    );
    await expectError(
      () =>
        runAfterModel(
          [{ afterModel: () => ({ content: "x", toolCalls: [{ name: "no id" }] }) }],
          response,
          mctx,
        ),
      TypeError,
      "middleware #0 afterModel returned an object, not a ChatResponse { content, toolCalls, ... }; return a changed copy of the response, or nothing to keep it",
    );
  });
});

describe("runBeforeTool / runOnToolError", () => {
  it("chains argument replacements in order", async () => {
    const out = await runBeforeTool(
      [
        { beforeTool: (a: { n?: number }) => ({ n: (a.n ?? 0) + 1 }) },
        { beforeTool: (a: { n?: number }) => ({ n: (a.n ?? 0) * 10 }) },
        { beforeTool: () => undefined },
      ],
      { n: 1 },
      tctx,
    );
    expect(out).toEqual({ n: 20 });
  });

  it("calls the first hook synchronously", () => {
    const log: string[] = [];
    void runBeforeTool([{ beforeTool: () => void log.push("hook") }], {}, tctx);
    log.push("after call");
    expect(log).toEqual(["hook", "after call"]);
  });

  it("runs every onToolError hook in order and ignores what they return", async () => {
    const log: string[] = [];
    const err = new Error("e");
    await runOnToolError(
      [
        {
          onToolError: (e: Error, c: ToolMiddlewareContext) =>
            void log.push(`a ${e.message} ${c.toolCallId}`),
        },
        { beforeTool: () => undefined },
        {
          onToolError: async (e: Error) => {
            log.push(`b ${e.message}`);
            return new Error("ignored");
          },
        },
      ],
      err,
      tctx,
    );
    expect(log).toEqual(["a e c1", "b e"]);
  });
});

describe("middlewareTools", () => {
  it("collects the tools of each middleware in order", () => {
    const a = tool(() => 1, { name: "a", description: "d" });
    const b = tool(() => 2, { name: "b", description: "d" });
    expect(
      middlewareTools([{ tools: () => [a] }, {}, { tools: () => [] }, { tools: () => [b, ping] }]),
    ).toEqual([a, b, ping]);
    expect(middlewareTools([])).toEqual([]);
  });

  it("refuses tools() results that are not tools", async () => {
    await expectError(
      () => middlewareTools([{ name: "todo", tools: () => ping }]),
      TypeError,
      "middleware todo tools() returned an object, not an array of tools",
    );
    await expectError(
      () => middlewareTools([{ name: "todo", tools: () => [ping, { name: "x" }] }]),
      TypeError,
      "middleware todo tools() returned an object at index 1, not a tool made by tool()",
    );
  });
});

describe("hasHook", () => {
  it("says whether any middleware has the hook as a function", () => {
    const limit = { name: "limit", beforeTool: () => undefined };
    expect(hasHook([], "beforeModel")).toBe(false);
    expect(hasHook([limit], "beforeModel")).toBe(false);
    expect(hasHook([limit, null, 3, { afterModel: "not a function" }], "afterModel")).toBe(false);
    expect(hasHook([limit, { afterModel: () => undefined }], "afterModel")).toBe(true);
    expect(hasHook([limit], "beforeTool")).toBe(true);
  });
});
