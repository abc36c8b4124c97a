/**
 * Test fixture (not part of the API): the registry of the BullMQ tests, the same in the test
 * process (the parent) and in the worker processes.
 *
 * `researcher` is a `buildReactAgent` on a `ScriptedChat` whose every answer is computed from
 * the request, so that sub-agents running at once in one process get their own answers:
 * - topic `"kill"`: one turn calling `record` ("c1") and `block` ("c2") at once, then
 *   `"done: <tool results>"`;
 * - any other topic: one call of `lookup` ("lookup-<topic>"), then `"<topic>: <result>"`.
 *
 * Tools write to files under `dir`: `record` appends `<call id>` to `runs.log`; `block`
 * appends `<call id>` to `runs.log`, then in worker `"A"` writes `blocked` and never returns;
 * `lookup` appends `<worker> <topic>` to `lookups.log`, writes `started-<worker>` and waits
 * (up to 10 s) until two workers have started one, so that two workers each run at least one
 * (worker `"P"`, the test process itself, does not wait).
 */

import { appendFileSync, existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { buildReactAgent } from "../../agents/index.js";
import { type ChatRequest, type ChatResponseInit, ScriptedChat } from "../../chat/index.js";
import { textOf } from "../../chat/parts.js";
import { tool } from "../../tools/index.js";
import type { GraphRegistry } from "./job-data.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A tool message's `{"result": ...}` content, as text. */
function resultOf(content: string | null): string {
  const parsed = JSON.parse(content ?? "null") as { result?: unknown } | null;
  return String(parsed?.result ?? content);
}

function answer(request: ChatRequest): ChatResponseInit | string | Error {
  const msgs = request.messages;
  const topic = textOf(msgs.find((m) => m.type === "human")?.content) ?? "";
  const last = msgs[msgs.length - 1];
  if (last?.type === "tool") {
    const results = msgs.filter((m) => m.type === "tool").map((m) => resultOf(textOf(m.content)));
    return topic === "kill" ? `done: ${results.join(" | ")}` : `${topic}: ${results.join(" | ")}`;
  }
  if (topic === "kill") {
    return {
      toolCalls: [
        { id: "c1", name: "record", arguments: { note: "first" } },
        { id: "c2", name: "block", arguments: {} },
      ],
    };
  }
  if (topic === "fail") return new RangeError("the model is down");
  return { toolCalls: [{ id: `lookup-${topic}`, name: "lookup", arguments: { topic } }] };
}

/** The registry of a worker named `worker` writing under `dir`. */
export function testRegistry(dir: string, worker: string): GraphRegistry {
  const record = tool(
    ({ note }) => {
      appendFileSync(join(dir, "runs.log"), "c1\n");
      return `recorded ${note}`;
    },
    { name: "record", description: "Record a note.", input: z.object({ note: z.string() }) },
  );
  const block = tool(
    async () => {
      appendFileSync(join(dir, "runs.log"), "c2\n");
      if (worker === "A") {
        writeFileSync(join(dir, "blocked"), "");
        setInterval(() => {}, 1000); // keep the process alive until it is killed
        await new Promise(() => {});
      }
      return "unblocked";
    },
    { name: "block", description: "Wait for something." },
  );
  const lookup = tool(
    async ({ topic }) => {
      appendFileSync(join(dir, "lookups.log"), `${worker} ${topic}\n`);
      writeFileSync(join(dir, `started-${worker}`), "");
      const until = Date.now() + 10_000;
      while (
        worker !== "P" &&
        readdirSync(dir).filter((f) => f.startsWith("started-")).length < 2 &&
        Date.now() < until
      )
        await sleep(10);
      return `fact about ${topic}`;
    },
    { name: "lookup", description: "Look a topic up.", input: z.object({ topic: z.string() }) },
  );
  const researcher = buildReactAgent(new ScriptedChat(Array.from({ length: 1000 }, () => answer)), {
    name: "researcher",
    tools: [record, block, lookup],
  });
  // buildReactAgent has no leaseTtlMs option: a short lease, so that the thread of a killed
  // worker is free soon after.
  (researcher as unknown as { leaseTtlMs: number }).leaseTtlMs = 500;
  return { researcher };
}

/** Whether a file exists under `dir`. */
export const exists = (dir: string, name: string) => existsSync(join(dir, name));
