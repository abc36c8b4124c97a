/**
 * `onRunEnd` attacked: an async hook that rejects must not become an unhandled rejection
 * (the run has completed; what a hook throws or rejects with is ignored, docs/middleware.md).
 */
import { afterEach, expect, it } from "vitest";
import { z } from "zod";
import { buildReactAgent } from "../agents/react-agent.js";
import { HumanMessage, ScriptedChat } from "../chat/index.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import { tool } from "../tools/tool.js";
import type { Middleware, RunEndInfo } from "./types.js";

const lookup = tool(({ q }) => `found ${q}`, {
  name: "lookup",
  description: "Look it up.",
  input: z.object({ q: z.string() }),
});
const ask = (text: string) => ({ messages: [HumanMessage({ content: text })] });

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
afterEach(() => {
  process.off("unhandledRejection", onUnhandled);
  unhandled.length = 0;
});

it("an async onRunEnd that rejects is ignored: no unhandled rejection, later hooks still told", async () => {
  process.on("unhandledRejection", onUnhandled);
  const told: string[] = [];
  const rejecting: Middleware = {
    async onRunEnd() {
      told.push("rejecting");
      throw new Error("async hook failed");
    },
  };
  const spy: Middleware = {
    onRunEnd(run: RunEndInfo) {
      told.push(`spy ${run.threadId}`);
    },
  };
  const agent = buildReactAgent(new ScriptedChat(["Done."]), {
    tools: [lookup],
    stateStore: new MemoryStateStore(),
    middleware: [rejecting, spy],
  });
  const r = await agent.invoke(ask("go"), { threadId: "t1" });
  expect(r.status).toBe("completed");
  // Let the rejected promise's unhandled-rejection check run.
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(told).toEqual(["rejecting", "spy t1"]);
  expect(unhandled).toEqual([]);
});
