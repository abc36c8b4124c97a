/**
 * Issue 20, item 6: cold load. A thread of at least 10,000 events (a ReAct agent's
 * conversation, written by its runs) on SQLite and PostgreSQL; a new process opens the store
 * and reads the thread's state (`graph.getState`), twice (two new store instances, the second
 * with the JIT warm). Measured: wall and CPU ms from opening the store to the state, the bytes
 * the store returned (event rows and snapshot: data JSON and text columns, as `sizeBytes`
 * counts them) against the state's own JSON, and the events read.
 *
 * Also printed: where the first load's ms went (opening the store, each store call, the rest:
 * checking the snapshot, folding the tail, copying the state out). Module loading is not in
 * it: the child first reads a thread that does not exist (bench/import-time.ts measures imports).
 *
 * `node --import tsx bench/cold-load.ts [--json FILE] [--events N] [--reps N]`; also the `cold`
 * group of `npm run bench` (`--only cold`).
 *
 * @module
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { z } from "zod";
import { freshSchema, jsonBytes, POSTGRES_URL, SCRIPT, tempDir } from "./common.js";
import {
  buildReactAgent,
  type Chat,
  type ChatResponseInit,
  type ChatStreamChunk,
  HumanMessage,
  PostgresStateStore,
  SqliteStateStore,
  type StateStore,
  type StoredEvent,
  tool,
} from "./nodestep-api.js";

/** What one cold load measured. */
export interface ColdLoad {
  store: "sqlite" | "postgres";
  /** Events on the thread's branch. */
  events: number;
  /** Wall ms from `new Store(...)` to the state (first load of the process). */
  firstMs: number;
  /** CPU ms of the same. */
  firstCpuMs: number;
  /** Wall ms of a second load in the same process on a new store instance. */
  secondMs: number;
  /** Bytes the store returned to the first load (rows' data and text columns). */
  bytesRead: number;
  /** UTF-8 bytes of the state's JSON. */
  stateBytes: number;
  /** bytesRead / stateBytes. */
  readRatio: number;
  /** Events the first load read (a snapshot counts as none). */
  eventsRead: number;
  /** Whether the first load used a snapshot. */
  snapshot: boolean;
  /** Seq of the snapshot the thread's runs kept (0: none). */
  snapshotSeq: number;
  /**
   * Where the first load's time went, wall and CPU ms: opening the store (`new Store(...)`;
   * PostgreSQL connects on its first query, so its connection is in the first call), each
   * store call the load made (summed by method), and the rest (`rest`: building the agent,
   * checking the snapshot, folding the tail, copying the state out).
   */
  phases: Record<string, { ms: number; cpuMs: number }>;
}

/** Wall and CPU ms since `from`. */
function since(from: { t: number; c: NodeJS.CpuUsage }): { ms: number; cpuMs: number } {
  const c = process.cpuUsage(from.c);
  return { ms: performance.now() - from.t, cpuMs: (c.user + c.system) / 1000 };
}

const now = () => ({ t: performance.now(), c: process.cpuUsage() });

class FakeChat implements Chat {
  readonly model = "fake";
  #n = 0;
  async complete(): Promise<ChatResponseInit> {
    this.#n += 1;
    return { content: SCRIPT.answerTurn(this.#n) };
  }
  // biome-ignore lint/correctness/useYield: never streams
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

function agentOn(store: StateStore) {
  return buildReactAgent(new FakeChat(), { tools: [lookup], stateStore: store });
}

/** UTF-8 bytes of a row as the stores count it: data JSON, text columns, 8 per number. */
function rowBytes(e: StoredEvent): number {
  return (
    Buffer.byteLength(JSON.stringify(e.data)) +
    Buffer.byteLength(e.type) +
    Buffer.byteLength(e.runId) +
    Buffer.byteLength(e.taskId ?? "") +
    Buffer.byteLength(e.node ?? "") +
    Buffer.byteLength(e.threadId) +
    Buffer.byteLength(e.branchId) +
    32
  );
}

/** The store's reading methods, timed and kept by {@link counted} (others pass through). */
const TIMED = new Set<string | symbol>(["getBranch", "loadSnapshot", "read", "getEvent"]);

/** What a load read: the events and the snapshot the store returned, counted after the load. */
interface Reads {
  events: StoredEvent[];
  snapshot: { seq: number; data: unknown } | null;
}

/**
 * The store, keeping what its reads return (`read`, `getEvent`, `loadSnapshot`); the bytes are
 * counted afterwards by {@link bytesOf}, so that counting is not part of the measured load.
 */
function counted(store: StateStore): {
  store: StateStore;
  reads: Reads;
  phases: Record<string, { ms: number; cpuMs: number }>;
} {
  const reads: Reads = { events: [], snapshot: null };
  const phases: Record<string, { ms: number; cpuMs: number }> = {};
  const timed = (name: string, f: (...a: unknown[]) => Promise<unknown>) => {
    return async (...a: unknown[]) => {
      const from = now();
      try {
        return await f(...a);
      } finally {
        const d = since(from);
        const p = phases[name] ?? { ms: 0, cpuMs: 0 };
        phases[name] = p;
        p.ms += d.ms;
        p.cpuMs += d.cpuMs;
      }
    };
  };
  const proxy = new Proxy(store, {
    get(target, key, receiver) {
      const v = Reflect.get(target, key, receiver);
      if (typeof v !== "function") return v;
      if (!TIMED.has(key)) return v.bind(target);
      return timed(String(key), wrap(target, key, v));
    },
  });
  return { store: proxy, reads, phases };

  function wrap(
    target: StateStore,
    key: string | symbol,
    v: (...a: unknown[]) => unknown,
  ): (...a: unknown[]) => Promise<unknown> {
    if (key === "read") {
      return async (...a: unknown[]) => {
        const out = (await v.apply(target, a)) as StoredEvent[];
        for (const e of out) reads.events.push(e);
        return out;
      };
    }
    if (key === "getEvent") {
      return async (...a: unknown[]) => {
        const e = (await v.apply(target, a)) as StoredEvent | null;
        if (e) reads.events.push(e);
        return e;
      };
    }
    if (key === "loadSnapshot") {
      return async (...a: unknown[]) => {
        const s = (await v.apply(target, a)) as { seq: number; data: unknown } | null;
        if (s) reads.snapshot = s;
        return s;
      };
    }
    return async (...a: unknown[]) => v.apply(target, a);
  }
}

/** Bytes of what a load read, as `sizeBytes` counts them (a snapshot: its data JSON and 8). */
function bytesOf(reads: Reads): number {
  let n = 0;
  for (const e of reads.events) n += rowBytes(e);
  if (reads.snapshot) n += Buffer.byteLength(JSON.stringify(reads.snapshot.data)) + 8;
  return n;
}

function openStore(kind: "sqlite" | "postgres", where: string): StateStore {
  return kind === "sqlite"
    ? new SqliteStateStore({ path: where })
    : new PostgresStateStore({ connectionString: POSTGRES_URL, schema: where });
}

/** Child: load the thread twice, print one JSON line. */
async function child(kind: "sqlite" | "postgres", where: string): Promise<void> {
  // The process's code loaded first (the store's driver, the agent's modules), on a thread that
  // does not exist: what is measured is reading the thread, not importing nodestep.
  const warm = openStore(kind, where);
  await agentOn(warm).getState("nobody");
  await warm.close();
  const start = now();
  const raw = openStore(kind, where);
  const open = since(start);
  const { store, reads, phases } = counted(raw);
  const snap = await agentOn(store).getState("bench");
  const first = since(start);
  const firstMs = first.ms;
  const rest = { ms: first.ms - open.ms, cpuMs: first.cpuMs - open.cpuMs };
  for (const p of Object.values(phases)) {
    rest.ms -= p.ms;
    rest.cpuMs -= p.cpuMs;
  }
  const branch = await raw.getBranch("bench", "main");
  await raw.close();
  const t1 = performance.now();
  const again = openStore(kind, where);
  await agentOn(again).getState("bench");
  const secondMs = performance.now() - t1;
  await again.close();
  const stateBytes = jsonBytes(snap.state);
  const bytesRead = bytesOf(reads);
  const out: ColdLoad = {
    store: kind,
    events: branch?.lastSeq ?? 0,
    firstMs,
    firstCpuMs: first.cpuMs,
    secondMs,
    bytesRead,
    stateBytes,
    readRatio: bytesRead / stateBytes,
    eventsRead: reads.events.length,
    snapshot: reads.snapshot !== null,
    snapshotSeq: reads.snapshot?.seq ?? 0,
    phases: { open, ...phases, rest },
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

/** Write a conversation of at least `events` events on `store` (its runs write it). */
async function writeThread(store: StateStore, events: number): Promise<void> {
  const agent = agentOn(store);
  for (let t = 1; ; t++) {
    await agent.invoke(
      { messages: [HumanMessage({ content: SCRIPT.userTurn(t) })] },
      { threadId: "bench" },
    );
    const b = await store.getBranch("bench", "main");
    if ((b?.lastSeq ?? 0) >= events) return;
  }
}

function runChild(kind: string, where: string): Promise<ColdLoad> {
  return new Promise((resolve, reject) => {
    const p = spawn(
      process.execPath,
      ["--import", "tsx", fileURLToPath(import.meta.url), "child", kind, where],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let out = "";
    p.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    p.on("close", (code) => {
      const line = out.trim().split("\n").at(-1) ?? "";
      if (code === 0 && line.startsWith("{")) resolve(JSON.parse(line) as ColdLoad);
      else reject(new Error(`cold-load child exited ${code}: ${out}`));
    });
  });
}

/** Write the threads, then load each from new processes (`reps` each); the median run (by first-load CPU ms). */
export async function coldLoads(events = 10_000, reps = 3): Promise<ColdLoad[]> {
  const tmp = tempDir("nodestep-cold-");
  const path = `${tmp.dir}/threads.db`;
  const schema = freshSchema("nodestep_cold");
  const admin = new pg.Pool({ connectionString: POSTGRES_URL, max: 1 });
  const out: ColdLoad[] = [];
  try {
    const sqlite = new SqliteStateStore({ path });
    await writeThread(sqlite, events);
    // The same events, copied into PostgreSQL as they are (the runs' own events).
    const all = await sqlite.read("bench", "main");
    // The snapshot the runs kept (a load keeps a newer one: it is put back before each load).
    const kept = await sqlite.loadSnapshot("bench", "main");
    await sqlite.close();
    const pgStore = new PostgresStateStore({ connectionString: POSTGRES_URL, schema });
    for (let i = 0; i < all.length; i += 500) {
      await pgStore.append("bench", "main", all.slice(i, i + 500), i);
    }
    await pgStore.close();
    for (const [kind, where] of [
      ["sqlite", path],
      ["postgres", schema],
    ] as const) {
      const runs: ColdLoad[] = [];
      for (let r = 0; r < reps; r++) {
        const s = openStore(kind, where);
        if (kept) await s.saveSnapshot("bench", "main", kept);
        await s.close();
        runs.push(await runChild(kind, where));
      }
      runs.sort((a, b) => a.firstCpuMs - b.firstCpuMs);
      out.push(runs[Math.floor(runs.length / 2)]!);
    }
  } finally {
    tmp.remove();
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
    await admin.end();
  }
  return out;
}

/** The table of {@link coldLoads}. */
export function coldLoadTable(rows: ColdLoad[]): string {
  const head = [
    "store",
    "events",
    "first load ms (CPU ms)",
    "second load ms",
    "bytes read",
    "state bytes",
    "read / state",
    "events read",
    "snapshot",
  ];
  const lines = rows.map((r) => [
    r.store,
    r.events.toLocaleString("en-US"),
    `${r.firstMs.toFixed(1)} (${r.firstCpuMs.toFixed(1)})`,
    r.secondMs.toFixed(1),
    r.bytesRead.toLocaleString("en-US"),
    r.stateBytes.toLocaleString("en-US"),
    `${r.readRatio.toFixed(2)}×`,
    r.eventsRead.toLocaleString("en-US"),
    r.snapshot ? `at seq ${r.snapshotSeq.toLocaleString("en-US")}` : "none",
  ]);
  const w = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (c: string[]) => `| ${c.map((x, i) => x.padEnd(w[i]!)).join(" | ")} |`;
  return [fmt(head), `|${w.map((x) => "-".repeat(x + 2)).join("|")}|`, ...lines.map(fmt)].join(
    "\n",
  );
}

/** Where the first loads' ms went: one row per store, wall (CPU) ms per phase. */
export function coldPhaseTable(rows: ColdLoad[]): string {
  const names = [...new Set(rows.flatMap((r) => Object.keys(r.phases)))];
  const head = ["store", ...names];
  const lines = rows.map((r) => [
    r.store,
    ...names.map((n) => {
      const p = r.phases[n];
      return p ? `${p.ms.toFixed(1)} (${p.cpuMs.toFixed(1)})` : "";
    }),
  ]);
  const w = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (c: string[]) => `| ${c.map((x, i) => x.padEnd(w[i]!)).join(" | ")} |`;
  return [fmt(head), `|${w.map((x) => "-".repeat(x + 2)).join("|")}|`, ...lines.map(fmt)].join(
    "\n",
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [mode, kind, where] = process.argv.slice(2);
  if (mode === "child") await child(kind as "sqlite" | "postgres", where!);
  else if (mode === "prepare") {
    // Keep a thread for profiling: `prepare <sqlite path>` (no PostgreSQL copy).
    const s = new SqliteStateStore({ path: kind! });
    await writeThread(s, 10_000);
    await s.close();
  } else {
    const args = process.argv.slice(2);
    const json = args.includes("--json") ? args[args.indexOf("--json") + 1] : undefined;
    const n = args.includes("--events") ? Number(args[args.indexOf("--events") + 1]) : 10_000;
    const reps = args.includes("--reps") ? Number(args[args.indexOf("--reps") + 1]) : 3;
    const rows = await coldLoads(n, reps);
    console.log(`Cold load of a ${n.toLocaleString("en-US")}-event thread (issue 20, item 6)\n`);
    console.log(coldLoadTable(rows));
    console.log(
      "\nFirst load by phase, wall ms (CPU ms): open = new Store(...); then each store call; rest = agent, fold, copy\n",
    );
    console.log(coldPhaseTable(rows));
    if (json) writeFileSync(json, `${JSON.stringify(rows, null, 2)}\n`);
  }
}
