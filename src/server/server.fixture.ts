/**
 * Shared setup of the server tests (server*.test.ts): a client that reads JSON and SSE
 * answers, the error body, the refund graph's question, and a server over the refund graph.
 *
 * @module
 */
import { buildRefundGraph } from "../cli/fixtures/refund.fixture.js";
import { MemoryStateStore } from "../stores/index.js";
import { createServer, type ListeningServer, listen } from "./index.js";

export interface SseEvent {
  event: string;
  id: string | undefined;
  data: unknown;
}

/** Parse a whole server-sent event stream. */
export function parseSse(text: string): SseEvent[] {
  return text
    .split("\n\n")
    .filter((block) => block.trim() !== "")
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

export function client(base: () => string, headers: Record<string, string> = {}) {
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(base() + path, {
      method,
      headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const type = res.headers.get("content-type") ?? "";
    return {
      status: res.status,
      headers: res.headers,
      text,
      body: type.startsWith("application/json") ? (JSON.parse(text) as unknown) : null,
      events: type.startsWith("text/event-stream") ? parseSse(text) : [],
    };
  };
  return {
    get: (path: string) => call("GET", path),
    post: (path: string, body: unknown = {}) => call("POST", path, body),
  };
}

export const err = (type: string, message: string) => ({ error: { type, message } });
export const QUESTION = {
  key: "approve",
  value: { question: "Refund 250 EUR?" },
  node: "approve",
  taskId: "1:0",
};

/** A server on a free port of 127.0.0.1 over the refund graph on a new memory store. */
export async function startRefundServer(
  options: Omit<Parameters<typeof createServer>[0], "graph"> = {},
): Promise<ListeningServer> {
  const graph = buildRefundGraph({ stateStore: new MemoryStateStore() });
  return listen(createServer({ graph, ...options }), { port: 0 });
}
