/**
 * The workloads written with nodestep.
 *
 * @module
 */
import { createHash } from "node:crypto";
// From the package itself, not bench/nodestep-api.ts: that module re-exports the SQLite and
// PostgreSQL stores, and a bundle that imports it loads pg and better-sqlite3 in every worker
// (bench/worker-build.ts); openStore imports those stores on first use instead.
import {
  buildReactAgent,
  defineState,
  END,
  Graph,
  HumanMessage,
  MemoryStateStore,
  node,
  reducer,
  Send,
  START,
  type StateStore,
  tool,
  when,
} from "nodestep";
import type { Chat, ChatResponseInit, ChatStreamChunk, ContentPart } from "nodestep/chat";
import { z } from "zod";
import {
  appendInPlace,
  type Case,
  driveThread,
  type Figures,
  freshSchema,
  jsonBytes,
  measureRuns,
  median,
  POSTGRES_URL,
  peakRssMb,
  SCRIPT,
  type StoreKind,
  tailUs,
  tempDir,
  warmUp,
} from "./common.js";
import { schemaBytes } from "./pg-bytes.js";

/**
 * The fake model: a plain {@link Chat} whose `complete` returns `reply(n)` on its n-th call.
 * It keeps no record of the requests (`ScriptedChat` keeps every request, which would add the
 * benchmark's own memory to the figures).
 */
class FakeChat implements Chat {
  readonly model = "fake";
  #calls = 0;
  constructor(readonly reply: (n: number) => ChatResponseInit) {}
  async complete(): Promise<ChatResponseInit> {
    this.#calls += 1;
    return this.reply(this.#calls);
  }
  // biome-ignore lint/correctness/useYield: the benchmark never streams
  async *stream(): AsyncIterable<ChatStreamChunk> {
    throw new Error("FakeChat does not stream");
  }
}

const lookup = tool(({ q }) => SCRIPT.toolResult(q), {
  name: SCRIPT.toolName,
  description: SCRIPT.toolDescription,
  input: z.object({ q: z.string() }),
  output: z.string(),
});

/** A store of the given kind, and how to measure and dispose of it (bench/shapes-nodestep.ts and bench/threads-nodestep.ts use it too). */
export interface OpenStore {
  store: StateStore | null;
  /** Bytes on disk (file, table) or in memory, as {@link Figures.bytesStored} says. */
  bytes(): Promise<number>;
  /** The store's `sizeBytes()`. */
  logical(): Promise<number>;
  close(): Promise<void>;
}

/**
 * Open a store of `kind`. The SQLite and PostgreSQL stores (and pg, better-sqlite3) are
 * imported on first use, as an application that uses one store loads only that one: a run on
 * the memory store does not carry their modules in its RSS.
 */
export async function openStore(kind: StoreKind): Promise<OpenStore> {
  switch (kind) {
    case "none":
      return { store: null, bytes: async () => 0, logical: async () => 0, close: async () => {} };
    case "memory": {
      const store = new MemoryStateStore();
      const size = () => store.sizeBytes();
      return { store, bytes: size, logical: size, close: () => store.close() };
    }
    case "sqlite": {
      const { SqliteStateStore } = await import("nodestep/sqlite");
      const tmp = tempDir("nodestep-bench-");
      const store = new SqliteStateStore({ path: `${tmp.dir}/threads.db` });
      return {
        store,
        // The file as it rests: the write-ahead log copied in first (as closing the store does).
        bytes: async () => {
          await store.checkpoint();
          return store.fileSizeBytes();
        },
        logical: () => store.sizeBytes(),
        close: async () => {
          await store.close();
          tmp.remove();
        },
      };
    }
    case "postgres": {
      const [{ PostgresStateStore }, { default: pg }] = await Promise.all([
        import("nodestep/postgres"),
        import("pg"),
      ]);
      const schema = freshSchema("nodestep_bench");
      const store = new PostgresStateStore({ connectionString: POSTGRES_URL, schema });
      const admin = new pg.Pool({ connectionString: POSTGRES_URL, max: 1 });
      return {
        store,
        bytes: () => schemaBytes(admin, schema),
        logical: () => store.sizeBytes(),
        close: async () => {
          await store.close();
          await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
          await admin.end();
        },
      };
    }
  }
}

async function loop(n: number): Promise<Partial<Figures>> {
  const State = defineState({
    count: reducer(z.number().default(0), (a: number, b: number) => a + b),
  });
  type S = typeof State.State;
  const a = node(() => ({ count: 1 }), { name: "a" });
  const b = node(() => ({ count: 1 }), { name: "b" });
  const graph = new Graph(State, { name: "loop", maxSteps: n + 10 }).flow(
    START.to(a),
    a.to(b),
    b.to(when((s: S) => s.count < n, a, { otherwise: END })),
  );
  const t0 = performance.now();
  const { state } = await graph.invoke({});
  const totalMs = performance.now() - t0;
  if (state.count !== n) throw new Error(`loop: count ${state.count}, expected ${n}`);
  return { totalMs, usPerStep: (totalMs * 1000) / n };
}

async function react(k: number, kind: StoreKind): Promise<Partial<Figures>> {
  const chat = new FakeChat((n) =>
    n < k
      ? {
          toolCalls: [
            { id: SCRIPT.toolCallId(n), name: SCRIPT.toolName, arguments: SCRIPT.toolArgs(n) },
          ],
        }
      : { content: SCRIPT.finalAnswer(k) },
  );
  const s = await openStore(kind);
  try {
    const agent = buildReactAgent(chat, {
      tools: [lookup],
      stateStore: s.store,
      maxSteps: 2 * k + 10,
      maxToolCalls: k + 10,
    });
    const input = { messages: [HumanMessage({ content: SCRIPT.question })] };
    const t0 = performance.now();
    const { state } = await agent.invoke(input, s.store ? { threadId: "bench" } : {});
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
    if (s.store) {
      out.bytesStored = await s.bytes();
      out.logicalBytes = await s.logical();
    }
    return out;
  } finally {
    await s.close();
  }
}

async function thread(turns: number, kind: StoreKind): Promise<Partial<Figures>> {
  const chat = new FakeChat((n) => ({ content: SCRIPT.answerTurn(n) }));
  const s = await openStore(kind);
  try {
    const agent = buildReactAgent(chat, { tools: [lookup], stateStore: s.store });
    let last: { messages: unknown[] } = { messages: [] };
    const run = await driveThread(
      turns,
      async (t) => {
        const input = { messages: [HumanMessage({ content: SCRIPT.userTurn(t) })] };
        last = (await agent.invoke(input, { threadId: "bench" })).state;
      },
      () => s.bytes(),
    );
    if (last.messages.length !== 2 * turns) {
      throw new Error(`thread: ${last.messages.length} messages, expected ${2 * turns}`);
    }
    return {
      totalMs: run.totalMs,
      usPerInvoke: tailUs(run.timesMs),
      cpuMs: run.tailCpuMs,
      samples: run.samples,
      bytesStored: await s.bytes(),
      logicalBytes: await s.logical(),
      messages: last.messages.length,
      messagesJsonBytes: jsonBytes(last.messages),
    };
  } finally {
    await s.close();
  }
}

/**
 * A distinct base64 "image" of {@link SCRIPT.imageChars} characters for turn `t` (a hash of
 * `t` repeated: the stores do not compress, so its content does not change the sizes).
 */
function imageData(t: number): string {
  const seed = createHash("sha256").update(`image ${t}`).digest("base64");
  return seed.repeat(Math.ceil(SCRIPT.imageChars / seed.length)).slice(0, SCRIPT.imageChars);
}

/** How many times each of `images` is held as a whole string in `values`. */
function copiesIn(values: readonly unknown[], images: ReadonlySet<string>): number {
  let n = 0;
  const walk = (v: unknown): void => {
    if (typeof v === "string") {
      if (v.length === SCRIPT.imageChars && images.has(v)) n++;
    } else if (Array.isArray(v)) {
      for (const x of v) walk(x);
    } else if (v !== null && typeof v === "object") {
      for (const x of Object.values(v)) walk(x);
    }
  };
  for (const v of values) walk(v);
  return n;
}

/**
 * Issue 15's conversation: `turns` turns of the agent on one thread, the user sending an image
 * with every tenth turn. Measures µs per turn and what the store holds against the images'
 * own bytes.
 */
async function parts(turns: number, kind: StoreKind): Promise<Partial<Figures>> {
  const chat = new FakeChat((n) => ({ content: SCRIPT.answerTurn(n) }));
  const s = await openStore(kind);
  const store = s.store!;
  try {
    const agent = buildReactAgent(chat, { tools: [lookup], stateStore: store });
    const images = new Set<string>();
    let last: { messages: unknown[] } = { messages: [] };
    const run = await driveThread(
      turns,
      async (t) => {
        const text = SCRIPT.userTurn(t);
        let content: string | ContentPart[] = text;
        if (t % SCRIPT.imageEvery === 0) {
          const data = imageData(t);
          images.add(data);
          content = [
            { type: "text", text },
            { type: "image", data, mediaType: "image/png" },
          ];
        }
        last = (
          await agent.invoke({ messages: [HumanMessage({ content })] }, { threadId: "bench" })
        ).state;
      },
      () => s.bytes(),
    );
    if (last.messages.length !== 2 * turns) {
      throw new Error(`parts: ${last.messages.length} messages, expected ${2 * turns}`);
    }
    const events = await store.read("bench", "main");
    const snapshot = await store.loadSnapshot("bench", "main");
    return {
      totalMs: run.totalMs,
      usPerTurn: (run.totalMs * 1000) / turns,
      usPerInvoke: tailUs(run.timesMs),
      usPerImageTurn:
        median(run.timesMs.filter((_, i) => (i + 1) % SCRIPT.imageEvery === 0)) * 1000,
      usPerTextTurn: median(run.timesMs.filter((_, i) => (i + 1) % SCRIPT.imageEvery !== 0)) * 1000,
      samples: run.samples,
      bytesStored: await s.bytes(),
      logicalBytes: await s.logical(),
      messages: last.messages.length,
      messagesJsonBytes: jsonBytes(last.messages),
      images: images.size,
      imageBytes: images.size * SCRIPT.imageChars,
      imageCopies: copiesIn([...events.map((e) => e.data), snapshot?.data ?? null], images),
    };
  } finally {
    await s.close();
  }
}

/** The fan-out size of the `fanout-limit` cases (their param is the limit). */
const FANOUT_LIMIT_N = 10_000;

/** A fan-out of `n` Sends; `limit`: the graph's maxConcurrency (none when not given). */
async function fanout(n: number, limit?: number): Promise<Partial<Figures>> {
  const State = defineState({
    items: reducer(z.array(z.number()).default([]), appendInPlace),
    i: z.number().default(0),
  });
  type S = typeof State.State;
  const fan = node(() => Array.from({ length: n }, (_, i) => new Send("worker", { i })), {
    name: "fan",
    goto: ["worker"],
  });
  const worker = node((s: S) => ({ items: [s.i] }), { name: "worker" });
  const graph = new Graph(State, {
    name: "fanout",
    ...(limit === undefined ? {} : { maxConcurrency: limit }),
  }).flow(START.to(fan), worker.to(END));
  const t0 = performance.now();
  const { state } = await graph.invoke({});
  const totalMs = performance.now() - t0;
  if (state.items.length !== n)
    throw new Error(`fanout: ${state.items.length} items, expected ${n}`);
  return { totalMs, items: state.items.length };
}

/** Run one case (after a warm-up of the same shape) and return its figures. */
export async function runNodestep(c: Case, warmup: number): Promise<Figures> {
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
        return fanout(FANOUT_LIMIT_N, param);
      case "parts":
        return parts(param, c.store);
      case "wide":
      case "long":
      case "threads":
        throw new Error(`${c.workload} runs in bench/engine-cases.ts`);
    }
  };
  await warmUp(once, c.param, warmup);
  const figures = await measureRuns(() => once(c.param));
  return { impl: "nodestep", ...c, totalMs: 0, ...figures, peakRssMb: peakRssMb() };
}
