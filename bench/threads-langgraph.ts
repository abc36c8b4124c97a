/**
 * Issue 20's `threads` workload written with LangGraph.js, as bench/threads-nodestep.ts:
 * `createReactAgent` on a fake chat model that answers from the messages alone (a tool call
 * after the user's message, the answer after the tool's), N threads of
 * {@link SCRIPT_THREADS}.turns turns, at most {@link SCRIPT_THREADS}.concurrency at a time, on
 * `MemorySaver` or `SqliteSaver`.
 *
 * @module
 */
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import type { Runnable } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { type BaseCheckpointSaver, MemorySaver } from "@langchain/langgraph";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { z } from "zod";
import {
  type Figures,
  heapBytesAfterGc,
  runPool,
  SCRIPT,
  SCRIPT_THREADS,
  type StoreKind,
  tempDir,
} from "./common.js";

/** The fake model: a tool call after a human message, the answer after a tool message. */
class FakeChatModel extends BaseChatModel {
  constructor() {
    super({});
  }
  _llmType(): string {
    return "fake";
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const n = messages.length;
    const message =
      messages.at(-1)!.getType() === "tool"
        ? new AIMessage({ content: SCRIPT_THREADS.answer(n) })
        : new AIMessage({
            content: "",
            tool_calls: [
              {
                id: `call_${n}`,
                name: SCRIPT.toolName,
                args: SCRIPT.toolArgs(n),
                type: "tool_call",
              },
            ],
          });
    return {
      generations: [{ text: typeof message.content === "string" ? message.content : "", message }],
    };
  }
  override bindTools(): Runnable {
    return this as unknown as Runnable;
  }
}

const lookup = tool(({ q }: { q: string }) => SCRIPT.toolResult(q), {
  name: SCRIPT.toolName,
  description: SCRIPT.toolDescription,
  schema: z.object({ q: z.string() }),
});

function openSaver(kind: StoreKind): {
  saver: BaseCheckpointSaver;
  close: () => void;
  /** Bytes the saver holds in the process's memory (MemorySaver's serialized checkpoints and writes). */
  held: () => number;
} {
  if (kind === "memory") {
    const saver = new MemorySaver();
    return { saver, close: () => {}, held: () => memorySaverBytes(saver) };
  }
  if (kind !== "sqlite") throw new Error("the threads workload runs on memory and sqlite");
  const tmp = tempDir("langgraph-bench-");
  const saver = SqliteSaver.fromConnString(`${tmp.dir}/checkpoints.db`);
  return {
    saver,
    close: () => {
      saver.db.close();
      tmp.remove();
    },
    held: () => 0,
  };
}

/** Bytes held by a `MemorySaver`: its serialized checkpoints, metadata and pending writes. */
function memorySaverBytes(saver: MemorySaver): number {
  let n = 0;
  for (const byNs of Object.values(saver.storage)) {
    for (const byId of Object.values(byNs)) {
      for (const [checkpoint, metadata] of Object.values(byId)) {
        n += checkpoint.byteLength + metadata.byteLength;
      }
    }
  }
  for (const byKey of Object.values(saver.writes)) {
    for (const write of Object.values(byKey)) n += write[2].byteLength;
  }
  return n;
}

let runNo = 0;

/** One run: `threads` conversations on a new checkpointer. */
export async function threadsLanggraph(
  threads: number,
  kind: StoreKind,
): Promise<Partial<Figures>> {
  const s = openSaver(kind);
  const run = ++runNo;
  try {
    const agent = createReactAgent({
      llm: new FakeChatModel(),
      tools: [lookup],
      checkpointSaver: s.saver,
    });
    const finals: BaseMessage[][] = new Array(threads);
    const heap0 = heapBytesAfterGc();
    const rss0 = process.memoryUsage().rss;
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    await runPool(threads, SCRIPT_THREADS.concurrency, async (i) => {
      const config = { configurable: { thread_id: `r${run}-t${i}` } };
      let messages: BaseMessage[] = [];
      for (let t = 1; t <= SCRIPT_THREADS.turns; t++) {
        const input = { messages: [new HumanMessage(SCRIPT_THREADS.user(i, t))] };
        messages = (await agent.invoke(input, config)).messages;
      }
      finals[i] = messages;
    });
    const totalMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const rss1 = process.memoryUsage().rss;
    for (const m of finals) {
      if (m.length !== 4 * SCRIPT_THREADS.turns)
        throw new Error(`threads: ${m.length} messages, expected ${4 * SCRIPT_THREADS.turns}`);
    }
    const json = JSON.stringify(finals);
    finals.length = 0;
    const heapIdle = heapBytesAfterGc();
    const copies = JSON.parse(json) as unknown[];
    const messagesHeap = heapBytesAfterGc() - heapIdle;
    copies.length = 0;
    const turns = threads * SCRIPT_THREADS.turns;
    return {
      totalMs,
      usPerTurn: (totalMs * 1000) / turns,
      turnsPerSec: turns / (totalMs / 1000),
      threads,
      messages: 4 * SCRIPT_THREADS.turns,
      messagesJsonBytes: Math.round(json.length / threads),
      messagesHeapBytesPerThread: Math.round(messagesHeap / threads),
      idleBytesPerThread: Math.round((heapIdle - heap0 - json.length) / threads),
      // Beyond what the saver holds of the messages (MemorySaver: its serialized checkpoints;
      // LangGraph.js keeps no thread's state in memory between invokes).
      idleBytesPerThreadBeyondMessages: Math.round(
        (heapIdle - heap0 - json.length - s.held()) / threads,
      ),
      // Stricter, as nodestep's: MemorySaver holds the messages' JSON text once; the rest is beyond.
      idleBytesPerThreadBeyondMessageText: Math.round(
        (heapIdle - heap0 - json.length - (kind === "memory" ? json.length : 0)) / threads,
      ),
      cpuUsPerTurn: (cpu.user + cpu.system) / turns,
      rssGrowthKbPerThread: (rss1 - rss0) / 1024 / threads,
    };
  } finally {
    s.close();
  }
}
