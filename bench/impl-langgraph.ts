/**
 * The workloads written with LangGraph.js 1.7.3, as its documentation shows them.
 *
 * The ReAct agent is `createReactAgent` from `@langchain/langgraph/prebuilt`, on a fake chat
 * model: a small `BaseChatModel` subclass whose `_generate` returns the scripted `AIMessage`
 * (tool calls on turns 1..K-1, an answer on turn K) and whose `bindTools` returns the model
 * itself. Stores: `MemorySaver`, `SqliteSaver` (on a file, WAL) and `PostgresSaver`.
 *
 * @module
 */
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import type { Runnable } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import {
  Annotation,
  type BaseCheckpointSaver,
  END,
  MemorySaver,
  Send,
  START,
  StateGraph,
} from "@langchain/langgraph";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import pg from "pg";
import { z } from "zod";
import {
  appendInPlace,
  type Case,
  driveThread,
  type Figures,
  freshSchema,
  jsonBytes,
  measureRuns,
  POSTGRES_URL,
  peakRssMb,
  SCRIPT,
  type StoreKind,
  seedRange,
  sqliteFileBytes,
  tailUs,
  tempDir,
  warmUp,
} from "./common.js";
import { schemaBytes } from "./pg-bytes.js";

/** A chat model that returns `reply(n)` on its n-th call, the same script as nodestep's fake. */
class FakeChatModel extends BaseChatModel {
  #calls = 0;
  constructor(readonly reply: (n: number) => AIMessage) {
    super({});
  }
  /** Count `n` calls as made (the turns a seeded thread did not invoke). */
  skip(n: number): void {
    this.#calls += n;
  }
  _llmType(): string {
    return "fake";
  }
  async _generate(_messages: BaseMessage[]): Promise<ChatResult> {
    this.#calls += 1;
    const message = this.reply(this.#calls);
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

interface OpenSaver {
  saver: BaseCheckpointSaver | undefined;
  bytes(): Promise<number>;
  close(): Promise<void>;
}

async function openSaver(kind: StoreKind): Promise<OpenSaver> {
  switch (kind) {
    case "none":
      return { saver: undefined, bytes: async () => 0, close: async () => {} };
    case "memory": {
      const saver = new MemorySaver();
      return { saver, bytes: async () => memorySaverBytes(saver), close: async () => {} };
    }
    case "sqlite": {
      const tmp = tempDir("langgraph-bench-");
      const path = `${tmp.dir}/checkpoints.db`;
      const saver = SqliteSaver.fromConnString(path);
      return {
        saver,
        // The file as it rests: the write-ahead log copied in first, as on the nodestep side.
        bytes: async () => {
          saver.db.pragma("wal_checkpoint(TRUNCATE)");
          return sqliteFileBytes(path);
        },
        close: async () => {
          saver.db.close();
          tmp.remove();
        },
      };
    }
    case "postgres": {
      const schema = freshSchema("langgraph_bench");
      const saver = PostgresSaver.fromConnString(POSTGRES_URL, { schema });
      await saver.setup();
      const admin = new pg.Pool({ connectionString: POSTGRES_URL, max: 1 });
      return {
        saver,
        bytes: () => schemaBytes(admin, schema),
        close: async () => {
          await saver.end();
          await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
          await admin.end();
        },
      };
    }
  }
}

async function loop(n: number): Promise<Partial<Figures>> {
  const State = Annotation.Root({
    count: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }),
  });
  const graph = new StateGraph(State)
    .addNode("a", () => ({ count: 1 }))
    .addNode("b", () => ({ count: 1 }))
    .addEdge(START, "a")
    .addEdge("a", "b")
    .addConditionalEdges("b", (s) => (s.count < n ? "a" : END), ["a", END])
    .compile();
  const t0 = performance.now();
  const state = await graph.invoke({}, { recursionLimit: n + 10 });
  const totalMs = performance.now() - t0;
  if (state.count !== n) throw new Error(`loop: count ${state.count}, expected ${n}`);
  return { totalMs, usPerStep: (totalMs * 1000) / n };
}

async function react(k: number, kind: StoreKind): Promise<Partial<Figures>> {
  const model = new FakeChatModel((n) =>
    n < k
      ? new AIMessage({
          content: "",
          tool_calls: [
            {
              id: SCRIPT.toolCallId(n),
              name: SCRIPT.toolName,
              args: SCRIPT.toolArgs(n),
              type: "tool_call",
            },
          ],
        })
      : new AIMessage({ content: SCRIPT.finalAnswer(k) }),
  );
  const s = await openSaver(kind);
  try {
    const agent = createReactAgent({ llm: model, tools: [lookup], checkpointSaver: s.saver });
    const t0 = performance.now();
    const state = await agent.invoke(
      { messages: [new HumanMessage(SCRIPT.question)] },
      { recursionLimit: 2 * k + 10, configurable: { thread_id: "bench" } },
    );
    const totalMs = performance.now() - t0;
    if (state.messages.length !== 2 * k) {
      throw new Error(`react: ${state.messages.length} messages, expected ${2 * k}`);
    }
    const out: Partial<Figures> = {
      totalMs,
      usPerTurn: (totalMs * 1000) / k,
      messages: state.messages.length,
      messagesJsonBytes: jsonBytes(state.messages),
    };
    if (s.saver) out.bytesStored = await s.bytes();
    return out;
  } finally {
    await s.close();
  }
}

async function thread(turns: number, kind: StoreKind): Promise<Partial<Figures>> {
  const model = new FakeChatModel((n) => new AIMessage({ content: SCRIPT.answerTurn(n) }));
  const s = await openSaver(kind);
  try {
    const agent = createReactAgent({ llm: model, tools: [lookup], checkpointSaver: s.saver });
    const config = { configurable: { thread_id: "bench" } };
    let last: { messages: BaseMessage[] } = { messages: [] };
    const range = seedRange(turns);
    const run = await driveThread(
      turns,
      async (t) => {
        last = await agent.invoke({ messages: [new HumanMessage(SCRIPT.userTurn(t))] }, config);
      },
      () => s.bytes(),
      range
        ? {
            range,
            // The turns' messages as the invoked turns make them (the user's, the model's
            // answer), added by the agent's own reducer as if its model node had written them.
            write: async (from, to) => {
              const messages: BaseMessage[] = [];
              for (let t = from; t <= to; t++) {
                messages.push(
                  new HumanMessage(SCRIPT.userTurn(t)),
                  new AIMessage({ content: SCRIPT.answerTurn(t) }),
                );
              }
              await agent.updateState(config, { messages }, "agent");
              model.skip(to - from + 1);
            },
          }
        : undefined,
    );
    if (last.messages.length !== 2 * turns) {
      throw new Error(`thread: ${last.messages.length} messages, expected ${2 * turns}`);
    }
    const texts = last.messages.map((m) => m.content);
    for (let t = 1; t <= turns; t++) {
      if (texts[2 * t - 2] !== SCRIPT.userTurn(t) || texts[2 * t - 1] !== SCRIPT.answerTurn(t))
        throw new Error(`thread: turn ${t}'s messages are not the script's`);
    }
    const out: Partial<Figures> = {
      totalMs: run.totalMs,
      usPerInvoke: tailUs(run.timesMs),
      cpuMs: run.tailCpuMs,
      samples: run.samples,
      messages: last.messages.length,
      messagesJsonBytes: jsonBytes(last.messages),
    };
    // A seeded thread holds fewer checkpoints than one invoked turn by turn: its bytes stored
    // are not LangGraph.js's for the workload, so they are left out (its samples' bytes
    // written by the sampled turns are).
    if (range) out.seededTurns = range;
    else out.bytesStored = await s.bytes();
    return out;
  } finally {
    await s.close();
  }
}

async function fanout(n: number): Promise<Partial<Figures>> {
  const State = Annotation.Root({
    items: Annotation<number[]>({ reducer: appendInPlace, default: () => [] }),
    i: Annotation<number>(),
  });
  const graph = new StateGraph(State)
    .addNode("fan", () => ({}))
    .addNode("worker", (s) => ({ items: [s.i] }))
    .addEdge(START, "fan")
    .addConditionalEdges("fan", () =>
      Array.from({ length: n }, (_, i) => new Send("worker", { i })),
    )
    .addEdge("worker", END)
    .compile();
  const t0 = performance.now();
  const state = await graph.invoke({});
  const totalMs = performance.now() - t0;
  if (state.items.length !== n)
    throw new Error(`fanout: ${state.items.length} items, expected ${n}`);
  return { totalMs, items: state.items.length };
}

/** Run one case (after a warm-up of the same shape) and return its figures. */
export async function runLanggraph(c: Case, warmup: number): Promise<Figures> {
  const once = (param: number): Promise<Partial<Figures>> => {
    switch (c.workload) {
      case "loop":
        return loop(param);
      case "react":
        return react(param, c.store);
      case "thread":
        return thread(param, c.store);
      case "fanout":
        return fanout(param);
      case "fanout-limit":
      case "parts":
        throw new Error(`${c.workload} is a nodestep-only case`);
      case "wide":
      case "long":
      case "threads":
        throw new Error(`${c.workload} runs in bench/engine-cases.ts`);
    }
  };
  await warmUp(once, c.param, warmup);
  const figures = await measureRuns(() => once(c.param));
  return { impl: "langgraph", ...c, totalMs: 0, ...figures, peakRssMb: peakRssMb() };
}
