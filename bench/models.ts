/**
 * `npm run bench:models` (and the last table of `npm run bench`): per-call overhead, in µs, of
 * the AI SDK adapter (`fromAISdk` on the AI SDK's `MockLanguageModelV4`, against calling the
 * mock's `doGenerate` / `doStream` directly) and of `fallbackChat` (one scripted model behind
 * it, against calling that model directly). The adapter makes the call's `AbortSignal` only
 * when the model reads `abortSignal`, which the mock does not and a real provider does (to
 * pass it to `fetch`): the row "model reads abortSignal" includes making it (a few µs in
 * Node). Complete and stream, median of 5 rounds of N calls,
 * in wall-clock time and in CPU time of this process (on a shared machine the CPU column is the
 * steadier one).
 *
 * Flags: --calls N (default 20,000 per round).
 *
 * @module
 */
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { fromAISdk } from "nodestep/ai-sdk";
import { type Chat, ChatRequest, fallbackChat, HumanMessage } from "nodestep/chat";

const USAGE = {
  inputTokens: { total: 5, noCache: 5, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 3, text: 3, reasoning: 0 },
};
const PARTS = [
  { type: "stream-start", warnings: [] },
  { type: "text-delta", id: "t", delta: "Hello " },
  { type: "text-delta", id: "t", delta: "there." },
  { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: USAGE },
];
const RESULT = {
  content: [{ type: "text", text: "Hello there." }],
  finishReason: { unified: "stop", raw: "stop" },
  usage: USAGE,
  warnings: [],
};

/**
 * The AI SDK's mock model. It records every call's options (`doGenerateCalls`,
 * `doStreamCalls`); `forget` empties those lists after each call, direct or wrapped, so that
 * the heap does not grow with the number of calls (a real provider keeps nothing).
 */
function mock(readsSignal = false): { model: MockLanguageModelV4; forget: () => void } {
  const model = new MockLanguageModelV4({
    doGenerate: async (o) => {
      // A real provider passes abortSignal to fetch; the adapter makes it when it is read.
      if (readsSignal && o.abortSignal === null) throw new Error("unreachable");
      return RESULT as never;
    },
    doStream: async () => ({ stream: convertArrayToReadableStream(PARTS) }) as never,
  });
  return {
    model,
    forget: () => {
      model.doGenerateCalls.length = 0;
      model.doStreamCalls.length = 0;
    },
  };
}

/** A Chat with no work of its own: the scripted model behind fallback. */
const scripted: Chat = {
  model: "scripted",
  async complete() {
    return { content: "Hello there.", finishReason: "stop" };
  },
  async *stream() {
    yield { contentDelta: "Hello " };
    yield { contentDelta: "there." };
    yield { finishReason: "stop" };
  },
};

/** Wall-clock and CPU time (user + system, this process) per call, in µs: medians of 5 rounds. */
interface PerCall {
  wall: number;
  cpu: number;
}

async function perCallUs(n: number, call: () => Promise<unknown>): Promise<PerCall> {
  for (let i = 0; i < Math.min(n, 2000); i++) await call(); // warm up
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let r = 0; r < 5; r++) {
    const c = process.cpuUsage();
    const t = performance.now();
    for (let i = 0; i < n; i++) await call();
    wall.push(((performance.now() - t) * 1000) / n);
    const used = process.cpuUsage(c);
    cpu.push((used.user + used.system) / n);
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[2]!;
  return { wall: median(wall), cpu: median(cpu) };
}

async function drain(s: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of s);
}

async function drainStream(s: ReadableStream<unknown>): Promise<void> {
  const reader = s.getReader();
  while (!(await reader.read()).done);
}

/** One row: the case, then the direct and the wrapped call's time per call. */
export type ModelOverheadRow = [name: string, direct: PerCall, wrapped: PerCall];

/** Measure and return the rows. */
export async function modelOverheadRows(n = 20_000): Promise<ModelOverheadRow[]> {
  const request = ChatRequest({ messages: [HumanMessage({ content: "Hi" })] });
  const { model: m, forget } = mock();
  const adapter = fromAISdk(m);
  const reading = mock(true);
  const readingAdapter = fromAISdk(reading.model);
  const options = { prompt: [{ role: "user", content: [{ type: "text", text: "Hi" }] }] };
  const fallback = fallbackChat([scripted]);
  return [
    [
      "AI SDK adapter, complete",
      await perCallUs(n, async () => {
        await m.doGenerate(options as never);
        forget();
      }),
      await perCallUs(n, async () => {
        await adapter.complete(request);
        forget();
      }),
    ],
    [
      "AI SDK adapter, complete, model reads abortSignal",
      await perCallUs(n, async () => {
        await reading.model.doGenerate(options as never);
        reading.forget();
      }),
      await perCallUs(n, async () => {
        await readingAdapter.complete(request);
        reading.forget();
      }),
    ],
    [
      "AI SDK adapter, stream",
      await perCallUs(n, async () => {
        await drainStream((await m.doStream(options as never)).stream);
        forget();
      }),
      await perCallUs(n, async () => {
        await drain(adapter.stream(request));
        forget();
      }),
    ],
    [
      "fallbackChat, complete",
      await perCallUs(n, () => scripted.complete(request)),
      await perCallUs(n, () => fallback.complete(request)),
    ],
    [
      "fallbackChat, stream",
      await perCallUs(n, () => drain(scripted.stream(request))),
      await perCallUs(n, () => drain(fallback.stream(request))),
    ],
  ];
}

/** The rows as a table: wall-clock time per call, and the overhead in wall-clock and CPU time. */
export function modelOverheadTable(rows: ModelOverheadRow[]): string {
  const head = [
    "case",
    "direct µs/call",
    "wrapped µs/call",
    "overhead µs/call",
    "overhead CPU µs/call",
  ];
  const body = rows.map(([name, direct, wrapped]) => [
    name,
    direct.wall.toFixed(2),
    wrapped.wall.toFixed(2),
    (wrapped.wall - direct.wall).toFixed(2),
    (wrapped.cpu - direct.cpu).toFixed(2),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  return [line(head), ...body.map(line)].join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const i = process.argv.indexOf("--calls");
  const n = i >= 0 ? Number(process.argv[i + 1]) : 20_000;
  console.log("Per-call overhead of the AI SDK adapter and of fallbackChat (median of 5 rounds)\n");
  console.log(modelOverheadTable(await modelOverheadRows(n)));
}
