/**
 * A local HTTP server that replays scripted provider responses byte for byte, so that chat
 * integrations can be tested with their real SDK and no network.
 *
 * @module
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** A request the server received. */
export interface RecordedRequest {
  method: string;
  /** Path and query, such as `/v1/chat/completions`. */
  path: string;
  /** Header names in lower case. */
  headers: Record<string, string | string[] | undefined>;
  /** The body text. */
  body: string;
  /** The body parsed as JSON, or `null` when it is not JSON. */
  json: unknown;
}

/** One scripted answer. */
export interface ReplayResponse {
  /** HTTP status; default 200. */
  status?: number;
  /** Response headers; `content-type` defaults to `application/json`. */
  headers?: Record<string, string>;
  /** Body text, or pieces written (and flushed) one after another. */
  body?: string | readonly string[];
  /** Wait between two pieces, in ms; default 0. */
  delayMs?: number;
  /** After the body, cut the connection instead of ending the response: a stream that breaks off. */
  breakOff?: boolean;
  /** After the body, keep the response open until the client goes away: a stream that stalls. */
  hang?: boolean;
}

/** A function of the request that picks the answer. */
export type Responder = (request: RecordedRequest) => ReplayResponse;

/**
 * The replay server: answers each request with the next queued response (or `fallback`),
 * and records every request.
 *
 * @example
 * ```ts
 * const server = await ReplayServer.start();
 * server.enqueue({ body: JSON.stringify({ ok: true }) });
 * await fetch(server.url + "/x"); // answered with {"ok":true}
 * await server.close();
 * ```
 */
export class ReplayServer {
  /** Base URL, such as `http://127.0.0.1:54321` (no trailing slash). */
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[] = [];
  /** Used when the queue is empty; when `null`, such a request gets HTTP 599 with an explanation. */
  fallback: ReplayResponse | Responder | null = null;
  readonly #server: Server;
  readonly #queue: Array<ReplayResponse | Responder> = [];
  readonly #sockets = new Set<Socket>();

  private constructor(server: Server, url: string) {
    this.#server = server;
    this.url = url;
    server.on("connection", (socket) => {
      this.#sockets.add(socket);
      socket.on("close", () => this.#sockets.delete(socket));
    });
  }

  /** Start a server on 127.0.0.1 on a free port. */
  static async start(): Promise<ReplayServer> {
    let self: ReplayServer | null = null;
    const server = createServer((req, res) => {
      if (self) void self.#handle(req, res);
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    self = new ReplayServer(server, `http://127.0.0.1:${port}`);
    return self;
  }

  /** Queue answers, served one per request in order. */
  enqueue(...responses: Array<ReplayResponse | Responder>): void {
    this.#queue.push(...responses);
  }

  /** How many queued answers are not used yet. */
  get pending(): number {
    return this.#queue.length;
  }

  /** Forget the queue, the fallback and the recorded requests. */
  reset(): void {
    this.#queue.length = 0;
    this.requests.length = 0;
    this.fallback = null;
  }

  /** Stop the server, cutting open connections. */
  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const pieces: Buffer[] = [];
    for await (const piece of req) pieces.push(piece as Buffer);
    const body = Buffer.concat(pieces).toString("utf8");
    let json: unknown = null;
    try {
      json = body === "" ? null : JSON.parse(body);
    } catch {
      json = null;
    }
    const recorded: RecordedRequest = {
      method: req.method ?? "GET",
      path: req.url ?? "/",
      headers: { ...req.headers },
      body,
      json,
    };
    this.requests.push(recorded);
    const next = this.#queue.shift() ?? this.fallback;
    const answer: ReplayResponse =
      next === null
        ? {
            status: 599,
            body: `ReplayServer: no response queued for ${recorded.method} ${recorded.path}`,
          }
        : typeof next === "function"
          ? next(recorded)
          : next;
    res.writeHead(answer.status ?? 200, {
      "content-type": "application/json",
      ...(answer.headers ?? {}),
    });
    res.flushHeaders();
    const parts = typeof answer.body === "string" ? [answer.body] : (answer.body ?? []);
    for (const [i, part] of parts.entries()) {
      if (res.destroyed) return;
      if (i > 0 && answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
      res.write(part);
    }
    if (answer.breakOff) {
      // Give the written bytes a moment to leave, then cut the connection.
      await new Promise((r) => setTimeout(r, 20));
      res.socket?.destroy();
      return;
    }
    if (answer.hang) return;
    res.end();
  }
}

/** Server-sent events: each event as `event: <name>\n` (when named) and `data: <text>\n\n`; objects are JSON-encoded. */
export function sseEvents(events: ReadonlyArray<{ event?: string; data: unknown }>): string[] {
  return events.map(
    ({ event, data }) =>
      (event ? `event: ${event}\n` : "") +
      `data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`,
  );
}

/** Newline-delimited JSON: each object as one line. */
export function ndjsonLines(objects: readonly unknown[]): string[] {
  return objects.map((o) => `${JSON.stringify(o)}\n`);
}
