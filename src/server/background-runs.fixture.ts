/**
 * What the background-run tests share: a graph gated by the test, a started server (closed after each test), and SSE parsing.
 */

/**
 * Background runs on the server, over real HTTP: detached runs, streams that go on when their
 * client leaves, joining by run id from the start or from `Last-Event-ID`, listing and
 * cancelling, the event buffer's bound (410), the concurrent-run limit (429), heartbeats, the
 * idle timeout, and the UI stream's resume route.
 */

import { afterEach, expect } from "vitest";
import { z } from "zod";
import { END, Graph, node, START } from "../graph/index.js";
import { defineState } from "../state/index.js";
import { MemoryStateStore } from "../stores/index.js";
import type { StateStore } from "../stores/types.js";
import { createServer, type ListeningServer, listen, type ServerOptions } from "./index.js";

export const State = defineState({ count: z.number().default(0) });
export type S = typeof State.State;

/** first ──▶ wait (until `open()`) ──▶ last; each emits `{ at }` and sets `count`. */
export function gatedGraph(stateStore: StateStore = new MemoryStateStore()) {
  let open = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const first = node(
    (_: S, ctx) => {
      ctx.emit({ at: "first" });
      return { count: 1 };
    },
    { name: "first" },
  );
  const wait = node(
    async (_: S, ctx) => {
      ctx.emit({ at: "wait" });
      await new Promise<void>((resolve, reject) => {
        void gate.then(resolve);
        ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason));
      });
      return { count: 2 };
    },
    { name: "wait" },
  );
  const last = node(
    (_: S, ctx) => {
      ctx.emit({ at: "last" });
      return { count: 3 };
    },
    { name: "last" },
  );
  const graph = new Graph(State, { name: "gated", stateStore }).flow(
    START.to(first),
    first.to(wait),
    wait.to(last),
    last.to(END),
  );
  return { graph, open: () => open() };
}

export interface SseEvent {
  event: string;
  id: string | undefined;
  data: unknown;
}

export function parseSse(text: string): SseEvent[] {
  return text
    .split("\n\n")
    .filter((block) => block.split("\n").some((l) => l.startsWith("data: ")))
    .map((block) => {
      let event = "message";
      let id: string | undefined;
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) event = line.slice(7);
        else if (line.startsWith("id: ")) id = line.slice(4);
        else if (line.startsWith("data: ")) data.push(line.slice(6));
      }
      return { event, id, data: JSON.parse(data.join("\n")) };
    });
}

/** Read a streamed answer until `until` holds for the events so far; then stop reading. */
export async function readUntil(
  res: Response,
  until: (events: SseEvent[]) => boolean,
  abort?: AbortController,
): Promise<{ events: SseEvent[]; text: string }> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const events = parseSse(text.slice(0, text.lastIndexOf("\n\n") + 2));
    if (until(events)) {
      abort?.abort();
      await reader.cancel().catch(() => {});
      return { events, text };
    }
    const r = await reader.read();
    if (r.done) return { events: parseSse(text), text };
    text += decoder.decode(r.value, { stream: true });
  }
}

export const brief = (events: SseEvent[]) =>
  events.map((e) => [e.id, e.event, (e.data as { data?: unknown }).data ?? null]);

export let server: ListeningServer | null = null;
/** Set the server `afterEach` closes (a test's own, or `null` once the test closed it). */
export function setServer(s: ListeningServer | null): void {
  server = s;
}
afterEach(async () => {
  await server?.close();
  server = null;
});

export async function start(extra: Partial<ServerOptions> = {}, stateStore?: StateStore) {
  const g = gatedGraph(stateStore);
  server = await listen(createServer({ graph: g.graph as never, ...extra }), { port: 0 });
  const url = server.url;
  const call = async (method: string, path: string, body?: unknown, headers = {}) => {
    const res = await fetch(url + path, {
      method,
      headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const type = res.headers.get("content-type") ?? "";
    const text = await res.text();
    return {
      status: res.status,
      body: type.startsWith("application/json") ? (JSON.parse(text) as unknown) : text,
    };
  };
  return { ...g, url, call };
}

/** Poll a run's info until `status` is not `running`. */
export async function settled(call: Awaited<ReturnType<typeof start>>["call"], path: string) {
  for (;;) {
    const r = await call("GET", path);
    if ((r.body as { status: string }).status !== "running") return r.body;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Poll a run's info until it has buffered `n` events. */
export async function reached(
  call: Awaited<ReturnType<typeof start>>["call"],
  path: string,
  n: number,
) {
  for (;;) {
    const r = await call("GET", path);
    if ((r.body as { lastEventId: number }).lastEventId >= n) return r.body;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export const RUN_INFO = {
  runId: expect.stringMatching(/^r-[0-9a-f]{16}$/),
  threadId: "t1",
  branchId: "main",
  startedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
};
/** A run's body: a fresh thread needs an input. */
export const GO = { input: { count: 0 } };
export const err = (type: string, message: string) => ({ error: { type, message } });
