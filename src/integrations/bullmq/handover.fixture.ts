/**
 * Test fixture (not part of the API): the agent of the hand-over-then-killed test, the same in
 * the doomed worker process and in the test process that takes its run over.
 *
 * `handover` is a `buildReactAgent` on a `ScriptedChat` whose answers follow the request: a
 * first turn calls `note` ("t1"), a second `slow` ("t2"), then it answers `"done: <results>"`.
 * Each tool appends `<worker> <call id>` to `calls.log` under `dir` when it returns. `slow` in
 * worker `"A"` calls `onSlow()` and never returns (the worker hands the run over meanwhile);
 * elsewhere it returns at once. Its lease on a thread lasts 500 ms.
 */
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { buildReactAgent } from "../../agents/index.js";
import { type ChatRequest, type ChatResponseInit, ScriptedChat } from "../../chat/index.js";
import { textOf } from "../../chat/parts.js";
import type { StateStore } from "../../stores/types.js";
import { tool } from "../../tools/index.js";

function answer(request: ChatRequest): ChatResponseInit | string {
  const results = request.messages.filter((m) => m.type === "tool").map((m) => textOf(m.content));
  if (results.length === 0) {
    return { toolCalls: [{ id: "t1", name: "note", arguments: { text: "first" } }] };
  }
  if (results.length === 1) return { toolCalls: [{ id: "t2", name: "slow", arguments: {} }] };
  return `done: ${results.join(" | ")}`;
}

/** The agent of worker `worker`, writing `calls.log` under `dir`, on `stateStore`. */
export function buildHandover(o: {
  stateStore: StateStore;
  dir: string;
  worker: string;
  onSlow?: () => void;
}) {
  const done = (id: string) => appendFileSync(join(o.dir, "calls.log"), `${o.worker} ${id}\n`);
  const note = tool(
    ({ text }) => {
      done("t1");
      return `noted ${text}`;
    },
    { name: "note", description: "Note a text.", input: z.object({ text: z.string() }) },
  );
  const slow = tool(
    async () => {
      if (o.worker === "A") {
        o.onSlow?.();
        await new Promise(() => {});
      }
      done("t2");
      return "slow done";
    },
    { name: "slow", description: "Take a while." },
  );
  return buildReactAgent(new ScriptedChat(Array.from({ length: 100 }, () => answer)), {
    name: "handover",
    tools: [note, slow],
    stateStore: o.stateStore,
    leaseTtlMs: 500,
  });
}

/** The lines of `calls.log` under `dir` (none before a tool returned). */
export const callsOf = (dir: string): string[] =>
  existsSync(join(dir, "calls.log"))
    ? readFileSync(join(dir, "calls.log"), "utf8").trim().split("\n")
    : [];
