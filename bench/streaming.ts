/**
 * Issue 20, item 4, and issue 17's bench figures: a model node streaming 10,000 tokens.
 *
 * - nodestep: a ReAct agent without tools over a chat model whose stream yields N one-character
 *   chunks; `agent.stream(input, { modes: ["tokens"] })`; the server's SSE
 *   (`POST /api/threads/:id/runs/stream`, modes `["tokens"]`) and the AI SDK UI stream
 *   (`POST /api/threads/:id/ui-stream`) read by a local client over HTTP (`@hono/node-server`
 *   on 127.0.0.1, `fetch`).
 * - LangGraph.js: a `StateGraph` over `MessagesAnnotation` whose node invokes
 *   `FakeListChatModel` (one chunk per character, no sleep), `graph.stream(input,
 *   { streamMode: "messages" })`.
 *
 * Each side's overhead per token is its time per token less the time per token of iterating
 * its own model's stream alone (nodestep: `chat.stream`; LangGraph.js: `model.stream`). Both
 * sides run in this one process, alternating, `reps` times each; medians. Wall and CPU time.
 *
 * `node --import tsx bench/streaming.ts [--json FILE] [--tokens N] [--reps R]`; also the
 * `streaming` group of `npm run bench`.
 *
 * @module
 */
import { writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { serve } from "@hono/node-server";
import { type AIMessage, HumanMessage as LgHuman } from "@langchain/core/messages";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import {
  END as LG_END,
  START as LG_START,
  MessagesAnnotation,
  StateGraph,
} from "@langchain/langgraph";
import { median } from "./common.js";
import {
  buildReactAgent,
  type Chat,
  type ChatResponseInit,
  type ChatStreamChunk,
  createServer,
  HumanMessage,
  MemoryStateStore,
} from "./nodestep-api.js";

/** One figure: time per token (µs), wall and CPU, and what was counted. */
export interface StreamFigure {
  /** What was measured. */
  case: string;
  /** Tokens the model streamed. */
  tokens: number;
  /** Events the consumer received (tokens events, SSE events, UI stream chunks). */
  events: number;
  /** Median wall µs per token. */
  usPerToken: number;
  /** Median CPU µs per token (this process: for the HTTP cases, server and client both). */
  cpuUsPerToken: number;
  /** usPerToken less the model's own stream per token (the same side's baseline). */
  overheadUsPerToken: number;
  /** CPU overhead per token, the same way. */
  cpuOverheadUsPerToken: number;
  /** Events received per second (wall). */
  eventsPerSecond: number;
  /**
   * Median ms per run that the event loop was idle (waiting in the poll phase:
   * `performance.eventLoopUtilization`). 0 means the run never waited on anything (no timer,
   * no I/O): its wall time beyond its CPU time is time the OS gave the CPU to other processes.
   */
  loopIdleMs: number;
  /** Median involuntary context switches per run (the OS preempted this process). */
  preemptions: number;
  /** Peak RSS of the process so far, MB. */
  peakRssMb: number;
}

class TokenChat implements Chat {
  readonly model = "tokens";
  constructor(readonly n: number) {}
  async complete(): Promise<ChatResponseInit> {
    return { content: "x".repeat(this.n) };
  }
  async *stream(): AsyncIterable<ChatStreamChunk> {
    for (let i = 0; i < this.n; i++) yield { contentDelta: "x" };
    yield { finishReason: "stop" };
  }
}

interface Sample {
  ms: number;
  cpuMs: number;
  events: number;
  idleMs: number;
  preemptions: number;
}

async function timed(fn: () => Promise<number>): Promise<Sample> {
  const s0 = process.resourceUsage().involuntaryContextSwitches;
  const elu0 = performance.eventLoopUtilization();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const events = await fn();
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  const idleMs = performance.eventLoopUtilization(elu0).idle;
  const preemptions = process.resourceUsage().involuntaryContextSwitches - s0;
  return { ms, cpuMs: (c.user + c.system) / 1000, events, idleMs, preemptions };
}

/** Count SSE events (`data:` lines) or UI chunks in a streamed response body. */
async function countSse(res: Response): Promise<number> {
  if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
  let n = 0;
  let tail = "";
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    const text = tail + decoder.decode(chunk, { stream: true });
    const lines = text.split("\n");
    tail = lines.pop() ?? "";
    for (const l of lines) if (l.startsWith("data:")) n++;
  }
  return n;
}

/** Every case, `reps` times each, alternating; medians. */
export async function streamingFigures(tokens = 10_000, reps = 5): Promise<StreamFigure[]> {
  const chat = new TokenChat(tokens);
  const agent = buildReactAgent(chat, { tools: [], stream: true });
  const served = buildReactAgent(chat, {
    tools: [],
    stream: true,
    stateStore: new MemoryStateStore(),
  });
  const app = createServer({ graph: served as never });
  const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 });
  await new Promise<void>((r) => server.once("listening", () => r()));
  // The LangGraph.js cases take seconds between two HTTP cases: a keep-alive connection the
  // server closed after its default 5 s would be reused by fetch as it closes (ECONNRESET).
  (server as unknown as { keepAliveTimeout: number }).keepAliveTimeout = 600_000;
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let thread = 0;

  const model = new FakeListChatModel({ responses: ["x".repeat(tokens)] });
  const lg = new StateGraph(MessagesAnnotation)
    .addNode("model", async (s: typeof MessagesAnnotation.State) => ({
      messages: [(await model.invoke(s.messages)) as AIMessage],
    }))
    .addEdge(LG_START, "model")
    .addEdge("model", LG_END)
    .compile();

  const cases: Record<string, () => Promise<number>> = {
    "nodestep chat.stream alone": async () => {
      let n = 0;
      for await (const c of chat.stream()) if (c.contentDelta) n++;
      return n;
    },
    "nodestep graph.stream tokens": async () => {
      let n = 0;
      for await (const e of agent.stream(
        { messages: [HumanMessage({ content: "hi" })] },
        { modes: ["tokens"] },
      ))
        if (e.mode === "tokens") n++;
      return n;
    },
    "nodestep server SSE": async () => {
      const res = await fetch(`${base}/api/threads/s${++thread}/runs/stream`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ message: "hi", modes: ["tokens"] }),
      });
      return countSse(res);
    },
    "nodestep server UI stream": async () => {
      const res = await fetch(`${base}/api/threads/u${++thread}/ui-stream`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          id: `u${thread}`,
          trigger: "submit-message",
          messages: [{ id: "m1", role: "user", parts: [{ type: "text", text: "hi" }] }],
        }),
      });
      return countSse(res);
    },
    "LangGraph.js model.stream alone": async () => {
      let n = 0;
      for await (const c of await model.stream([new LgHuman("hi")])) if (c.content) n++;
      return n;
    },
    "LangGraph.js graph.stream messages": async () => {
      let n = 0;
      for await (const _ of await lg.stream(
        { messages: [new LgHuman("hi")] },
        { streamMode: "messages" },
      ))
        n++;
      return n;
    },
  };
  const samples = new Map<string, Sample[]>(Object.keys(cases).map((k) => [k, []]));
  // One warm-up of each, then the reps, alternating the order.
  for (const fn of Object.values(cases)) await fn();
  for (let r = 0; r < reps; r++) {
    const names = Object.keys(cases);
    if (r % 2 === 1) names.reverse();
    for (const name of names) samples.get(name)!.push(await timed(cases[name]!));
  }
  server.close();
  const med = (name: string) => {
    const s = samples.get(name)!;
    return {
      us: (median(s.map((x) => x.ms)) * 1000) / tokens,
      cpu: (median(s.map((x) => x.cpuMs)) * 1000) / tokens,
      events: median(s.map((x) => x.events)),
      ms: median(s.map((x) => x.ms)),
      idleMs: median(s.map((x) => x.idleMs)),
      preemptions: median(s.map((x) => x.preemptions)),
    };
  };
  const nsBase = med("nodestep chat.stream alone");
  const lgBase = med("LangGraph.js model.stream alone");
  return Object.keys(cases).map((name) => {
    const m = med(name);
    const b = name.startsWith("LangGraph") ? lgBase : nsBase;
    return {
      case: name,
      tokens,
      events: m.events,
      usPerToken: m.us,
      cpuUsPerToken: m.cpu,
      overheadUsPerToken: m.us - b.us,
      cpuOverheadUsPerToken: m.cpu - b.cpu,
      eventsPerSecond: m.events / (m.ms / 1000),
      loopIdleMs: m.idleMs,
      preemptions: m.preemptions,
      peakRssMb: process.resourceUsage().maxRSS / 1024,
    };
  });
}

/** The table of {@link streamingFigures}, with the ratios of the graph.stream rows. */
export function streamingTable(rows: StreamFigure[]): string {
  const head = [
    "case",
    "events",
    "µs/token",
    "CPU µs/token",
    "overhead µs/token",
    "CPU overhead µs/token",
    "events/s",
    "loop idle ms/run",
    "preempted/run",
  ];
  const lines = rows.map((r) => [
    r.case,
    r.events.toLocaleString("en-US"),
    r.usPerToken.toFixed(2),
    r.cpuUsPerToken.toFixed(2),
    r.overheadUsPerToken.toFixed(2),
    r.cpuOverheadUsPerToken.toFixed(2),
    Math.round(r.eventsPerSecond).toLocaleString("en-US"),
    r.loopIdleMs.toFixed(1),
    String(Math.round(r.preemptions)),
  ]);
  const ns = rows.find((r) => r.case === "nodestep graph.stream tokens");
  const lg = rows.find((r) => r.case === "LangGraph.js graph.stream messages");
  const w = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (c: string[]) => `| ${c.map((x, i) => x.padEnd(w[i]!)).join(" | ")} |`;
  const out = [fmt(head), `|${w.map((x) => "-".repeat(x + 2)).join("|")}|`, ...lines.map(fmt)];
  if (ns && lg) {
    out.push(
      "",
      `graph.stream, LangGraph.js / nodestep: ${(lg.usPerToken / ns.usPerToken).toFixed(1)}× per token, ${(lg.cpuUsPerToken / ns.cpuUsPerToken).toFixed(1)}× CPU per token, ${(lg.overheadUsPerToken / Math.max(ns.overheadUsPerToken, 0.01)).toFixed(1)}× overhead per token`,
    );
  }
  return out.join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (flag: string, d: number) =>
    args.includes(flag) ? Number(args[args.indexOf(flag) + 1]) : d;
  const json = args.includes("--json") ? args[args.indexOf("--json") + 1] : undefined;
  const tokens = opt("--tokens", 10_000);
  const rows = await streamingFigures(tokens, opt("--reps", 5));
  console.log(
    `Streaming ${tokens.toLocaleString("en-US")} tokens (issue 20, item 4; issue 17's SSE and UI stream events per second)\n`,
  );
  console.log(streamingTable(rows));
  if (json) writeFileSync(json, `${JSON.stringify(rows, null, 2)}\n`);
}
