/**
 * The checks every request of the server passes before its route: the `Host` header (against
 * DNS rebinding), CORS for the allowed origins, the API key of `/api/*`, and the body limit.
 *
 * @module
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { cors } from "hono/cors";
import { type ErrorBody, HttpError } from "./errors.js";

/** The default loopback host names of `ServerOptions.allowedHosts`. */
export const LOOPBACK_HOSTS: readonly string[] = ["127.0.0.1", "localhost", "[::1]"];

/** What the guards check (the `ServerOptions` of the same names). */
export interface GuardOptions {
  apiKey?: string | null | undefined;
  corsOrigins?: readonly string[] | undefined;
  allowedHosts?: readonly string[] | null | undefined;
  maxBodyBytes?: number | undefined;
}

/** `{ error: { type, message } }`, the body of every error answer. */
export function errorBody(type: string, message: string): ErrorBody {
  return { error: { type, message } };
}

/**
 * Add the guards to `app`, in order: the host check (403 `ForbiddenHost`) and the
 * `X-Content-Type-Options: nosniff` header on every answer; CORS on `/api/*` when
 * `corsOrigins` has any; the API key on `/api/*` (401 `Unauthorized`); the body limit on
 * `/api/*` (413 `PayloadTooLarge`, default 1 MiB). Call before adding any route.
 */
export function addGuards(app: Hono, options: GuardOptions): void {
  const apiKeyHash = options.apiKey ? sha256(options.apiKey) : null;
  const allowedHosts =
    options.allowedHosts === null
      ? null
      : new Set((options.allowedHosts ?? LOOPBACK_HOSTS).map((h) => h.toLowerCase()));

  app.use("*", async (c, next) => {
    if (allowedHosts) {
      const host = hostName(c.req.header("host"));
      if (host !== null && !allowedHosts.has(host)) {
        throw new HttpError(
          403,
          "ForbiddenHost",
          `Requests addressed to host "${host}" are refused; this server answers ${[...allowedHosts].join(", ")} (start it with --host to serve other names)`,
        );
      }
    }
    await next();
    c.header("X-Content-Type-Options", "nosniff");
  });
  if (options.corsOrigins && options.corsOrigins.length > 0) {
    app.use(
      "/api/*",
      cors({
        origin: [...options.corsOrigins],
        allowMethods: ["GET", "POST", "OPTIONS"],
        allowHeaders: ["Authorization", "Content-Type", "Last-Event-ID"],
        exposeHeaders: ["X-Nodestep-Run-Id"],
        maxAge: 600,
      }),
    );
  }
  app.use("/api/*", async (c, next) => {
    if (apiKeyHash) {
      const given = /^Bearer\s+(.+)$/i.exec(c.req.header("authorization") ?? "")?.[1]?.trim();
      if (!given || !timingSafeEqual(sha256(given), apiKeyHash)) {
        c.header("WWW-Authenticate", 'Bearer realm="nodestep"');
        throw new HttpError(
          401,
          "Unauthorized",
          given
            ? "The API key is not valid"
            : "This server needs an API key: send Authorization: Bearer <key>",
        );
      }
    }
    await next();
  });
  app.use(
    "/api/*",
    bodyLimit({
      maxSize: options.maxBodyBytes ?? 1024 * 1024,
      // The rest of the body is not read, so the connection cannot be used again.
      onError: (c) =>
        c.json(
          errorBody(
            "PayloadTooLarge",
            `The request body is larger than ${options.maxBodyBytes ?? 1024 * 1024} bytes`,
          ),
          413,
          { Connection: "close" },
        ),
    }),
  );
}

function sha256(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

/** `"127.0.0.1:8080"` → `"127.0.0.1"`, `"[::1]:80"` → `"[::1]"`; `null` when absent. */
function hostName(header: string | undefined): string | null {
  if (!header) return null;
  const h = header.trim().toLowerCase();
  if (h.startsWith("[")) return h.slice(0, h.indexOf("]") + 1);
  const colon = h.indexOf(":");
  return colon < 0 ? h : h.slice(0, colon);
}
