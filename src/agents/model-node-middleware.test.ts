import { describe, expect, it } from "vitest";
import { type ChatRequest, ScriptedChat, SystemMessage } from "../chat/index.js";
import type { Middleware, ModelMiddlewareContext } from "../middleware/types.js";
import type { AgentState } from "./agent-state.js";
import { ask, seen, single } from "./model-node.fixture.js";
import { modelNode } from "./model-node.js";

describe("modelNode: model middleware", () => {
  it("runs beforeModel and afterModel, which may replace the request and the response", async () => {
    const chat = new ScriptedChat(["from the model"]);
    const contexts: ModelMiddlewareContext[] = [];
    const mw: Middleware = {
      beforeModel(request, ctx) {
        contexts.push(ctx);
        return { ...request, messages: [...request.messages, SystemMessage({ content: "added" })] };
      },
      afterModel(response) {
        return { ...response, content: `${response.content} (edited)` };
      },
    };
    const { state } = await single(modelNode("think", { chat }), { middleware: [mw] }).invoke(
      ask("q"),
    );
    expect(seen(chat.requests[0]!)).toEqual([
      { type: "human", content: "q" },
      { type: "system", content: "added" },
    ]);
    expect(state.finalText).toBe("from the model (edited)");
    expect(state.messages[1]).toMatchObject({ content: "from the model (edited)" });
    expect(contexts[0]!.model).toBe("scripted");
    expect(contexts[0]!.node.node).toBe("think");
    expect((contexts[0]!.state as typeof AgentState.State).messages[0]!.content).toBe("q");
  });

  it("an afterModel hook can turn an answer into a tool call", async () => {
    const mw: Middleware = {
      afterModel: (response) => ({
        ...response,
        content: null,
        toolCalls: [{ id: "x1", name: "lookup_order", arguments: {}, argumentsError: null }],
      }),
    };
    const { state } = await single(modelNode("think", { chat: new ScriptedChat(["text"]) }), {
      middleware: [mw],
    }).invoke(ask("q"));
    expect(state.toolCalls.map((c) => c.id)).toEqual(["x1"]);
    expect(state.finalText).toBeNull();
  });

  it("raises TypeError when a hook replaces the request or the response with another type", async () => {
    const badRequest: Middleware = {
      name: "Bad",
      beforeModel: () => "not a request" as unknown as ChatRequest,
    };
    await expect(
      single(modelNode("think", { chat: new ScriptedChat(["x"]) }), {
        middleware: [badRequest],
      }).invoke(ask("q")),
    ).rejects.toThrow(TypeError);
    const badResponse: Middleware = {
      name: "Bad",
      afterModel: () => [] as unknown as ReturnType<NonNullable<Middleware["afterModel"]>>,
    };
    const chat = new ScriptedChat(["x"]);
    const error = await single(modelNode("think", { chat }), { middleware: [badResponse] })
      .invoke(ask("q"))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(/^middleware Bad afterModel returned/);
  });
});
