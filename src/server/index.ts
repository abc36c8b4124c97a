/**
 * The nodestep HTTP server: {@link createServer} builds the Hono app over a graph and its
 * store; {@link listen} serves it on Node's HTTP server. `nodestep serve` is both together.
 *
 * @module
 */
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { Hono } from "hono";

export {
  createServer,
  DEFAULT_MAX_CONCURRENT_RUNS,
  LOOPBACK_HOSTS,
  type ServerOptions,
} from "./app.js";
export { type ErrorBody, errorAnswer, HttpError } from "./errors.js";
export { describeGraph, type GraphView, type GraphViewEdge } from "./graph-view.js";
export type {
  QueuedRunEvent,
  QueuedRunFacts,
  QueuedRunRequest,
  RunQueue,
} from "./run-queue.js";
export type { ServerRunInfo, ServerRunStatus } from "./run-registry.js";
export { stopRuns } from "./stop-runs.js";
export type { ServedGraph } from "./types.js";

/** The port `nodestep serve` listens on by default. */
export const DEFAULT_PORT = 7331;

/** A listening server, from {@link listen}. */
export interface ListeningServer {
  /** `http://host:port`, with the port actually bound (useful with port 0). */
  url: string;
  port: number;
  host: string;
  /** Stop accepting connections, end open ones (streams included) and wait until closed. */
  close(): Promise<void>;
}

/**
 * Serve a Hono app on Node's HTTP server; resolves once it listens.
 *
 * @param options.port - default {@link DEFAULT_PORT}; `0` picks a free port.
 * @param options.host - default `"127.0.0.1"` (this machine only).
 * @throws the listen error, such as `EADDRINUSE`.
 */
export function listen(
  app: Hono,
  options: { port?: number; host?: string } = {},
): Promise<ListeningServer> {
  const host = options.host ?? "127.0.0.1";
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port: options.port ?? DEFAULT_PORT, hostname: host });
    server.once("error", reject);
    server.once("listening", () => {
      server.off("error", reject);
      const { port } = server.address() as AddressInfo;
      const shown = host.includes(":") ? `[${host}]` : host;
      resolve({
        url: `http://${shown}:${port}`,
        port,
        host,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            if ("closeAllConnections" in server) server.closeAllConnections();
          }),
      });
    });
  });
}
