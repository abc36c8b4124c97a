import { SpanStatusCode, trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { caught } from "../../test/helpers.js";
import { buildReactAgent, runAgent } from "../agents/react-agent.js";
import { ScriptedChat } from "../chat/scripted-chat.js";
import { defineState } from "../state/define-state.js";
import { tool } from "../tools/tool.js";
import { Graph } from "./graph.js";
import { node, START } from "./node.js";
import { END } from "./routing.js";

function tracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, tracer: provider.getTracer("test") };
}

describe("tracing", () => {
  it("records runs, supersteps, nodes, model calls and tool calls with GenAI attributes, nested", async () => {
    const { exporter, tracer } = tracing();
    const status = tool(({ orderId }) => (orderId === "A-1" ? "shipped" : "unknown"), {
      name: "get_order_status",
      description: "Status of an order.",
      input: z.object({ orderId: z.string() }),
    });
    const chat = new ScriptedChat([
      {
        toolCalls: [{ id: "call_1", name: "get_order_status", arguments: { orderId: "A-1" } }],
        usage: { inputTokens: 11, outputTokens: 3 },
      },
      "Shipped.",
    ]);
    const agent = buildReactAgent(chat, { tools: [status], tracer });
    expect(await runAgent(agent, "Where is A-1?")).toBe("Shipped.");
    const spans = exporter.getFinishedSpans();
    const names = spans.map((s) => s.name);
    expect(names).toEqual([
      "chat scripted",
      "nodestep.node think",
      "nodestep.superstep 0",
      "execute_tool get_order_status",
      "nodestep.node act",
      "nodestep.superstep 1",
      "chat scripted",
      "nodestep.node think",
      "nodestep.superstep 2",
      "nodestep.run agent",
    ]);
    const byName = (n: string) => spans.find((s) => s.name === n)!;
    const chatSpan = byName("chat scripted");
    expect(chatSpan.attributes).toEqual({
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": "scripted",
      "gen_ai.response.model": "scripted",
      "gen_ai.response.finish_reasons": ["tool_calls"],
      "gen_ai.usage.input_tokens": 11,
      "gen_ai.usage.output_tokens": 3,
    });
    expect(byName("execute_tool get_order_status").attributes).toEqual({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "get_order_status",
      "gen_ai.tool.call.id": "call_1",
    });
    const parentOf = (n: string) => byName(n).parentSpanContext?.spanId;
    expect(parentOf("chat scripted")).toBe(byName("nodestep.node think").spanContext().spanId);
    expect(parentOf("nodestep.node think")).toBe(
      byName("nodestep.superstep 0").spanContext().spanId,
    );
    expect(parentOf("nodestep.superstep 0")).toBe(
      byName("nodestep.run agent").spanContext().spanId,
    );
    expect(byName("nodestep.run agent").attributes["nodestep.status"]).toBe("completed");
  });

  it("records a failure on its spans", async () => {
    const { exporter, tracer } = tracing();
    const boom = node(
      () => {
        throw new RangeError("boom");
      },
      { name: "boom" },
    );
    const g = new Graph(defineState({ x: z.number().default(0) }), { tracer }).flow(
      START.to(boom),
      boom.to(END),
    );
    expect((await caught(() => g.invoke({}))).message).toBe("boom");
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => [s.name, s.status.code, s.status.message])).toEqual([
      ["nodestep.node boom", SpanStatusCode.ERROR, "boom"],
      ["nodestep.superstep 0", SpanStatusCode.ERROR, "boom"],
      ["nodestep.run graph", SpanStatusCode.ERROR, "boom"],
    ]);
    expect(spans[0]!.events.map((e) => e.name)).toEqual(["exception"]);
  });

  it("makes no span without a tracer", async () => {
    const n = node((_s: Record<string, unknown>, ctx) => ({ traced: ctx.trace !== null }), {
      name: "n",
    });
    const g = new Graph().flow(START.to(n), n.to(END));
    expect((await g.invoke({})).state).toEqual({ traced: false });
  });
  it("takes the application's registered tracer provider with tracer: true", async () => {
    // The application registers through its own import of the API; nodestep loads the API
    // lazily and must see the same global provider.
    const { exporter } = tracing();
    const provider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    expect(trace.setGlobalTracerProvider(provider)).toBe(true);
    try {
      const State = defineState({ n: z.number().default(0) });
      const inc = node((s: { n: number }) => ({ n: s.n + 1 }), { name: "inc" });
      const graph = new Graph(State, { name: "g", tracer: true }).flow(START.to(inc), inc.to(END));
      expect((await graph.invoke({})).state).toEqual({ n: 1 });
      expect(exporter.getFinishedSpans().map((s) => [s.name, s.instrumentationScope.name])).toEqual(
        [
          ["nodestep.node inc", "nodestep"],
          ["nodestep.superstep 0", "nodestep"],
          ["nodestep.run g", "nodestep"],
        ],
      );
    } finally {
      trace.disable();
    }
  });
});
