/**
 * Issue 20's `threads` workload written with nodestep: N threads, each a conversation of
 * {@link SCRIPT_THREADS}.turns ReAct turns (the user's message; the model calls the lookup tool;
 * the tool answers; the model answers), run concurrently in one process, at most
 * {@link SCRIPT_THREADS}.concurrency conversations at a time, on the memory store or SQLite.
 * Figures: turns per second (µs of wall time per turn over the whole run), and the memory each
 * idle thread keeps after the run: the heap with every thread finished, per thread, and that
 * less what the process holds of the messages (the memory store's JSON text of its events;
 * the final messages of the threads whose positions the graph keeps, as much heap as a copy of
 * them takes on its own), and the stricter figure the target checks: that less only the
 * messages' own JSON text (once, for the memory store) and those final messages. Also the CPU
 * time of the conversations per turn. LangGraph.js's side: bench/threads-langgraph.ts.
 *
 * @module
 */
import { z } from "zod";
// The graph's own bound on the positions it keeps (internal to the engine, so imported from src/).
import { POSITION_CACHE_SIZE } from "../src/graph/position-cache.js";
import {
  type Figures,
  heapBytesAfterGc,
  runPool,
  SCRIPT,
  SCRIPT_THREADS,
  type StoreKind,
} from "./common.js";
import { openStore } from "./impl-nodestep.js";
import {
  buildReactAgent,
  type Chat,
  type ChatRequest,
  type ChatResponseInit,
  type ChatStreamChunk,
  HumanMessage,
  tool,
} from "./nodestep-api.js";

/**
 * The fake model of every thread: it answers from the request alone (a tool call after the
 * user's message, the answer after the tool's), so one object serves all threads.
 */
const chat: Chat = {
  model: "fake",
  async complete(request: ChatRequest): Promise<ChatResponseInit> {
    const last = request.messages.at(-1)!;
    const n = request.messages.length;
    return last.type === "tool"
      ? { content: SCRIPT_THREADS.answer(n) }
      : {
          toolCalls: [{ id: `call_${n}`, name: SCRIPT.toolName, arguments: SCRIPT.toolArgs(n) }],
        };
  },
  // biome-ignore lint/correctness/useYield: the benchmark never streams
  async *stream(): AsyncIterable<ChatStreamChunk> {
    throw new Error("the fake model does not stream");
  },
};

const lookup = tool(({ q }) => SCRIPT.toolResult(q), {
  name: SCRIPT.toolName,
  description: SCRIPT.toolDescription,
  input: z.object({ q: z.string() }),
  output: z.string(),
});

/** Thread positions a graph keeps in memory per store (src/graph/position-cache.ts). */
const POSITIONS_KEPT = POSITION_CACHE_SIZE;

let runNo = 0;

/** One run: `threads` conversations on a new store; see the module's description. */
export async function threadsNodestep(threads: number, kind: StoreKind): Promise<Partial<Figures>> {
  const s = await openStore(kind);
  const run = ++runNo;
  try {
    const agent = buildReactAgent(chat, { tools: [lookup], stateStore: s.store });
    const finals: unknown[][] = new Array(threads);
    const heap0 = heapBytesAfterGc();
    const rss0 = process.memoryUsage().rss;
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    await runPool(threads, SCRIPT_THREADS.concurrency, async (i) => {
      const threadId = `r${run}-t${i}`;
      let messages: unknown[] = [];
      for (let t = 1; t <= SCRIPT_THREADS.turns; t++) {
        const input = { messages: [HumanMessage({ content: SCRIPT_THREADS.user(i, t) })] };
        messages = (await agent.invoke(input, { threadId })).state.messages;
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
    // The messages on their own: a copy of every final list, measured by itself.
    const json = JSON.stringify(finals);
    finals.length = 0;
    const heapIdle = heapBytesAfterGc();
    const copies = JSON.parse(json) as unknown[];
    const messagesHeap = heapBytesAfterGc() - heapIdle;
    copies.length = 0;
    const turns = threads * SCRIPT_THREADS.turns;
    const logical = await s.logical();
    // What the process holds of the threads' messages: the memory store its JSON text (the
    // stored form: counted from its logical bytes), and every store the states of the threads
    // whose positions the graph keeps (at most POSITIONS_KEPT, src/graph/position-cache.ts).
    const held = kind === "memory" ? logical : 0;
    const kept = (Math.min(threads, POSITIONS_KEPT) / threads) * messagesHeap;
    const idle = heapIdle - heap0 - json.length;
    return {
      totalMs,
      usPerTurn: (totalMs * 1000) / turns,
      turnsPerSec: turns / (totalMs / 1000),
      threads,
      messages: 4 * SCRIPT_THREADS.turns,
      messagesJsonBytes: Math.round(json.length / threads),
      messagesHeapBytesPerThread: Math.round(messagesHeap / threads),
      // The heap the idle threads keep (the JSON string above, one byte a character, not counted).
      idleBytesPerThread: Math.round(idle / threads),
      idleBytesPerThreadBeyondMessages: Math.round((idle - held - kept) / threads),
      // Stricter: the memory store holds the messages' JSON text once; the rest is beyond.
      idleBytesPerThreadBeyondMessageText: Math.round(
        (idle - (kind === "memory" ? json.length : 0) - kept) / threads,
      ),
      cpuUsPerTurn: (cpu.user + cpu.system) / turns,
      rssGrowthKbPerThread: (rss1 - rss0) / 1024 / threads,
      logicalBytes: logical,
    };
  } finally {
    await s.close();
  }
}
