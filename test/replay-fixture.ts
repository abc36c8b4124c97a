/**
 * The shared setup of the provider integration tests against a local replay server: one
 * server per test file (started before its tests, closed after, reset before each test),
 * JSON responses, the media the parts tests send, and the check that a call was refused
 * with `UnsupportedPartError`.
 */
import { afterAll, beforeAll, beforeEach, expect } from "vitest";
import type { ContentPart } from "../src/chat/parts.js";
import { UnsupportedPartError } from "../src/errors/index.js";
import { type ReplayResponse, ReplayServer } from "../src/integrations/testing/replay-server.js";

/** A 1×1 PNG, base64. */
export const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
/** A tiny PDF, base64. */
export const PDF = "JVBERi0xLjQKJcfsj6IKdHJhaWxlcgo8PD4+CiUlRU9GCg==";
/** {@link PNG} as an image part. */
export const PNG_PART: ContentPart = { type: "image", data: PNG, mediaType: "image/png" };
/** {@link PDF} as a file part named `invoice.pdf`. */
export const PDF_PART: ContentPart = {
  type: "file",
  data: PDF,
  mediaType: "application/pdf",
  name: "invoice.pdf",
};

/**
 * Start a replay server for the calling test file: started in `beforeAll`, closed in
 * `afterAll`, and (unless `reset` is `false`) reset in `beforeEach`. Read it as
 * `replay.server` inside tests.
 */
export function replayServerPerFile(options: { reset?: boolean } = {}): {
  readonly server: ReplayServer;
} {
  let server: ReplayServer | null = null;
  beforeAll(async () => {
    server = await ReplayServer.start();
  });
  afterAll(async () => {
    await server?.close();
  });
  if (options.reset !== false) beforeEach(() => server?.reset());
  return {
    get server(): ReplayServer {
      if (server === null) throw new Error("the replay server is started in beforeAll");
      return server;
    },
  };
}

/** A JSON response of `body` (`content-type` `application/json`, or `contentType`). */
export function json(body: unknown, contentType = "application/json"): ReplayResponse {
  return { headers: { "content-type": contentType }, body: JSON.stringify(body) };
}

/** The error `p` rejects with, checked to be an `UnsupportedPartError` (a success fails the test). */
export async function rejection(p: Promise<unknown>): Promise<UnsupportedPartError> {
  const e = await p.then(
    () => new Error("the call succeeded"),
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(UnsupportedPartError);
  return e as UnsupportedPartError;
}
