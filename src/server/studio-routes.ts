/**
 * The studio's routes: `GET /` (its page, with a Content-Security-Policy that allows nothing
 * from elsewhere) and `GET /assets/:name` (the page's hashed scripts and styles), served from
 * the studio's build (src/studio/assets.ts). Without a build, `/` answers 500 with a page
 * naming the command that builds it.
 *
 * @module
 */
import type { Hono } from "hono";
import { missingStudioHtml, studioFiles } from "../studio/assets.js";
import { HttpError } from "./errors.js";

/** The studio page's Content-Security-Policy: its own files only (images may be data: or blob: URLs). */
export const STUDIO_CSP =
  "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; media-src 'self' data: blob:; frame-ancestors 'none'";

/** Add `GET /` and `GET /assets/:name` for the studio built in `dir`. */
export function addStudioRoutes(app: Hono, graphName: string, dir: string): void {
  const files = studioFiles(dir);
  app.get("/", async (c) => {
    c.header("Content-Security-Policy", STUDIO_CSP);
    c.header("Cache-Control", "no-cache");
    const html = await files.index(graphName);
    if (html === null) return c.html(missingStudioHtml(dir), 500);
    return c.html(html);
  });
  app.get("/assets/:name", async (c) => {
    const name = c.req.param("name");
    const file = await files.asset(name);
    if (!file) {
      throw new HttpError(404, "NotFound", `The studio has no asset "${name}"`);
    }
    c.header("Content-Type", file.contentType);
    c.header("Cache-Control", file.cacheControl);
    return c.body(file.body as Uint8Array<ArrayBuffer>);
  });
}
