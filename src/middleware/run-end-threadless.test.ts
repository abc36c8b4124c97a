/**
 * A run without a thread can never be resumed, so what a middleware keeps per run (a
 * `ToolLimitMiddleware` budget) goes however it ends: completed, failed or cancelled. (A run on a
 * thread that fails or pauses keeps it for its resume: run-end.test.ts.)
 */
import { expect, it } from "vitest";
import { z } from "zod";
import { buildReactAgent } from "../agents/react-agent.js";
import { HumanMessage, ScriptedChat } from "../chat/index.js";
import { RunCancelledError } from "../errors/index.js";
import { tool } from "../tools/tool.js";
import type { ToolLimitMiddleware } from "./tool-limit.js";
import type { Middleware, RunEndInfo } from "./types.js";

const lookup = tool(({ q }) => `found ${q}`, {
  name: "lookup",
  description: "Look it up.",
  input: z.object({ q: z.string() }),
});
const call = (id: string) => ({ id, name: "lookup", arguments: { q: id } });
const ask = (text: string) => ({ messages: [HumanMessage({ content: text })] });

it("a run without a thread that fails drops its budget and tells onRunEnd", async () => {
  const told: RunEndInfo[] = [];
  const spy: Middleware = { onRunEnd: (run) => void told.push(run) };
  const chat = new ScriptedChat([{ toolCalls: [call("c0")] }, new Error("model down")]);
  const agent = buildReactAgent(chat, { tools: [lookup], middleware: [spy] });
  const limit = agent.middleware[0] as ToolLimitMiddleware;
  expect(limit.name).toBe("ToolLimitMiddleware");
  const error = await agent.invoke(ask("go")).then(
    () => null,
    (e: unknown) => e,
  );
  expect((error as Error).message).toBe("model down");
  expect(limit.tracked()).toBe(0);
  expect(told.map((r) => [r.graphName, r.threadId, r.runId === r.originRunId])).toEqual([
    [agent.name, null, true],
  ]);
});

it("a run without a thread that is cancelled drops its budget and tells onRunEnd", async () => {
  const told: string[] = [];
  const spy: Middleware = { onRunEnd: (run) => void told.push(String(run.threadId)) };
  const ac = new AbortController();
  const cancelling = tool(
    () => {
      ac.abort();
      return "cancelled";
    },
    { name: "lookup", description: "Look it up.", input: z.object({ q: z.string() }) },
  );
  const chat = new ScriptedChat([{ toolCalls: [call("c0")] }, "Done."]);
  const agent = buildReactAgent(chat, { tools: [cancelling], middleware: [spy] });
  const limit = agent.middleware[0] as ToolLimitMiddleware;
  const error = await agent.invoke(ask("go"), { signal: ac.signal }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RunCancelledError);
  expect(limit.tracked()).toBe(0);
  expect(told).toEqual(["null"]);
});
