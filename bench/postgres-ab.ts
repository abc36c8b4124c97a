/**
 * Issue 20, item 3: the ReAct agent on PostgreSQL (K turns on one thread), in one process,
 * alternating: nodestep as it runs now (one statement per superstep: `appendLeased`, the
 * append, sequence check, lease and stop request together), nodestep on the path it had before
 * (the same store with `appendLeased` hidden: append, plus a stop-request poll at most every
 * 25 ms and timer renewals), nodestep with `durability: "async"` (a superstep's append in
 * flight while the next superstep runs; what comes meanwhile is sent as one append) and with
 * `durability: "exit"` (the run's events in one append at its end) — both trade durability for
 * speed (docs/stores.md, "Durability"), so they are measured apart from the default `"sync"` —
 * and LangGraph.js's `PostgresSaver` (bench/impl-langgraph.ts).
 * Counted: the SQL statements the process sent per turn (every pg client's `query`), wall
 * and CPU µs per turn. The statement count and the CPU time do not depend on the machine's
 * load; the wall time does.
 *
 * `node --import tsx bench/postgres-ab.ts [--json FILE] [--turns K] [--reps R] [--only P,Q]`
 * (`--only`: the variants whose names start with P or Q, e.g. `--only "nodestep (appendLeased"`
 * to profile one alone with `node --cpu-prof`); also the
 * `postgres-ab` group of `npm run bench`.
 *
 * @module
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { z } from "zod";
import { freshSchema, median, POSTGRES_URL, SCRIPT } from "./common.js";
import { runLanggraph } from "./impl-langgraph.js";
import {
  buildReactAgent,
  type Chat,
  type ChatResponseInit,
  type ChatStreamChunk,
  type Durability,
  HumanMessage,
  PostgresStateStore,
  type StateStore,
  tool,
} from "./nodestep-api.js";

/** The figures of one variant (medians of the reps). */
export interface PostgresAB {
  variant: string;
  turns: number;
  /** SQL statements sent per turn (the whole run, lease and load included, over K). */
  statementsPerTurn: number;
  usPerTurn: number;
  cpuUsPerTurn: number;
  runs: number;
}

let statements = 0;
const clientQuery = pg.Client.prototype.query as (...a: unknown[]) => unknown;
(pg.Client.prototype as unknown as { query: unknown }).query = function (
  this: pg.Client,
  ...a: unknown[]
) {
  statements++;
  return clientQuery.apply(this, a);
};

class FakeChat implements Chat {
  readonly model = "fake";
  #n = 0;
  constructor(readonly k: number) {}
  async complete(): Promise<ChatResponseInit> {
    const n = ++this.#n;
    return n < this.k
      ? {
          toolCalls: [
            { id: SCRIPT.toolCallId(n), name: SCRIPT.toolName, arguments: SCRIPT.toolArgs(n) },
          ],
        }
      : { content: SCRIPT.finalAnswer(this.k) };
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

/** The store without `appendLeased`: a run takes the path of stores that lack it. */
function withoutLeasedAppend(store: PostgresStateStore): StateStore {
  return new Proxy(store, {
    get(t, k, r) {
      if (k === "appendLeased") return undefined;
      const v = Reflect.get(t, k, r);
      return typeof v === "function" ? v.bind(t) : v;
    },
  });
}

interface Sample {
  statements: number;
  ms: number;
  cpuMs: number;
}

async function nodestep(
  k: number,
  leased: boolean,
  durability: Durability = "sync",
): Promise<Sample> {
  const schema = freshSchema("nodestep_ab");
  const store = new PostgresStateStore({ connectionString: POSTGRES_URL, schema });
  await store.ready();
  try {
    const s = leased ? store : withoutLeasedAppend(store);
    const agent = buildReactAgent(new FakeChat(k), {
      tools: [lookup],
      stateStore: s,
      maxSteps: 2 * k + 10,
      maxToolCalls: k + 10,
    });
    statements = 0;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const { state } = await agent.invoke(
      { messages: [HumanMessage({ content: SCRIPT.question })] },
      { threadId: "bench", durability },
    );
    const ms = performance.now() - t0;
    const c = process.cpuUsage(c0);
    if (state.messages.length !== 2 * k) throw new Error(`${state.messages.length} messages`);
    return { statements, ms, cpuMs: (c.user + c.system) / 1000 };
  } finally {
    await store.close();
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  }
}

async function langgraph(k: number): Promise<Sample> {
  statements = 0;
  const f = await runLanggraph({ workload: "react", store: "postgres", param: k }, 0);
  // Its statements include the saver's setup and the size query, over the runs its child
  // measured (one or more: bench/common.ts measureRuns), so per run; its time is the median
  // run's.
  return { statements: statements / (f.runsMeasured ?? 1), ms: f.totalMs, cpuMs: f.cpuMs };
}

/** nodestep's warm-up runs of each mode before the measured ones (see {@link postgresAB}). */
const NODESTEP_WARMUP_RUNS = 6;

/** Every variant (or those whose name starts with one of `only`) `reps` times, alternating the order; medians. */
export async function postgresAB(k = 200, reps = 3, only?: string[]): Promise<PostgresAB[]> {
  const all: Record<string, () => Promise<Sample>> = {
    "nodestep (appendLeased: one statement per superstep)": () => nodestep(k, true),
    "nodestep (append + renew + stop poll: before)": () => nodestep(k, false),
    'nodestep durability "async" (not durable per superstep)': () => nodestep(k, true, "async"),
    'nodestep durability "exit" (durable at the run\'s end)': () => nodestep(k, true, "exit"),
    "LangGraph.js PostgresSaver": () => langgraph(k),
  };
  const variants = Object.fromEntries(
    Object.entries(all).filter(([n]) => !only || only.some((o) => n.startsWith(o))),
  );
  const samples = new Map<string, Sample[]>(Object.keys(variants).map((v) => [v, []]));
  // Warm-up. nodestep's runs are short (a K = 200 run makes about 400 statements), so V8 is
  // still compiling its per-statement code for the first thousands of them: measured after one
  // K = 50 run, "sync" cost about twice the CPU a turn it costs once warm. NODESTEP_WARMUP_RUNS
  // runs of the full size in each of its modes first (a few seconds); LangGraph.js's side is
  // slower per turn than its warm-up, one run of K = 50 as before.
  for (let w = 0; w < NODESTEP_WARMUP_RUNS; w++) {
    await nodestep(k, true);
    await nodestep(k, true, "async");
  }
  if (variants["LangGraph.js PostgresSaver"]) await langgraph(Math.min(k, 50));
  for (let r = 0; r < reps; r++) {
    const names = Object.keys(variants);
    if (r % 2 === 1) names.reverse();
    for (const n of names) samples.get(n)!.push(await variants[n]!());
  }
  return Object.keys(variants).map((variant) => {
    const s = samples.get(variant)!;
    return {
      variant,
      turns: k,
      statementsPerTurn: median(s.map((x) => x.statements)) / k,
      usPerTurn: (median(s.map((x) => x.ms)) * 1000) / k,
      cpuUsPerTurn: (median(s.map((x) => x.cpuMs)) * 1000) / k,
      runs: s.length,
    };
  });
}

/** The table of {@link postgresAB}, with the ratios against LangGraph.js. */
export function postgresABTable(rows: PostgresAB[]): string {
  const lg = rows.find((r) => r.variant.startsWith("LangGraph"));
  const head = [
    "variant",
    "statements/turn",
    "µs/turn",
    "CPU µs/turn",
    "ratio (LangGraph.js / this)",
    "CPU ratio",
  ];
  const lines = rows.map((r) => [
    r.variant,
    r.statementsPerTurn.toFixed(2),
    Math.round(r.usPerTurn).toLocaleString("en-US"),
    Math.round(r.cpuUsPerTurn).toLocaleString("en-US"),
    lg ? `${(lg.usPerTurn / r.usPerTurn).toFixed(1)}×` : "–",
    lg ? `${(lg.cpuUsPerTurn / r.cpuUsPerTurn).toFixed(1)}×` : "–",
  ]);
  const w = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (c: string[]) => `| ${c.map((x, i) => x.padEnd(w[i]!)).join(" | ")} |`;
  return [fmt(head), `|${w.map((x) => "-".repeat(x + 2)).join("|")}|`, ...lines.map(fmt)].join(
    "\n",
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (flag: string, d: number) =>
    args.includes(flag) ? Number(args[args.indexOf(flag) + 1]) : d;
  const json = args.includes("--json") ? args[args.indexOf("--json") + 1] : undefined;
  const k = opt("--turns", 200);
  const only = args.includes("--only") ? args[args.indexOf("--only") + 1]!.split(",") : undefined;
  const rows = await postgresAB(k, opt("--reps", 3), only);
  console.log(
    `ReAct agent on PostgreSQL, K = ${k} (issue 20, item 3), one process, variants alternating\n`,
  );
  console.log(postgresABTable(rows));
  if (json) writeFileSync(json, `${JSON.stringify(rows, null, 2)}\n`);
}
