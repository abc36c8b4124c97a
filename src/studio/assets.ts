/**
 * The studio's built page as the server serves it: `index.html` at `/` and the hashed files
 * of `assets/` at `/assets/<name>`, read from the folder scripts/build-studio.mjs writes
 * (`dist/studio/` of the package: built by `npm run build`, by `npm ci` in a checkout through
 * the `prepare` script, and shipped in the package). Nothing is loaded from elsewhere.
 *
 * @module
 */
import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Content types of the files a studio build holds, by extension. */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".html": "text/html; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
  ".json": "application/json; charset=utf-8",
};

/** The command that builds the studio, as the missing-build page names it. */
export const STUDIO_BUILD_COMMAND = "npm run build (or node scripts/build-studio.mjs)";

/**
 * The folder of the studio's build: `dist/studio/` of the nodestep package this module is
 * part of (found by walking up to its package.json, from src/studio/ or from dist/).
 */
export function defaultStudioDir(from: string = fileURLToPath(import.meta.url)): string {
  let dir = dirname(from);
  for (;;) {
    const pkg = join(dir, "package.json");
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, "utf8")) as { name?: unknown }).name === "nodestep") {
          return join(dir, "dist", "studio");
        }
      } catch {
        // not a package.json we can read: keep walking up
      }
    }
    const up = dirname(dir);
    if (up === dir) return join(dirname(from), "..", "..", "dist", "studio");
    dir = up;
  }
}

/** Escape text for HTML. */
function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch] ?? ch,
  );
}

/** A file to answer with: its bytes, content type and cache policy. */
export interface StudioFile {
  body: Uint8Array;
  contentType: string;
  cacheControl: string;
}

/** The page of a server whose studio is not built: what is missing and the command that builds it. */
export function missingStudioHtml(dir: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>nodestep studio: not built</title></head>
<body style="font:15px/1.5 system-ui,sans-serif;max-width:44em;margin:3em auto">
<h1>The studio's page is not built</h1>
<p>This server looks for it in <code>${escapeHtml(dir)}</code>, which has no <code>index.html</code>.</p>
<p>Build it with <code>${escapeHtml(STUDIO_BUILD_COMMAND)}</code> in the nodestep checkout
(<code>npm ci</code> builds it too), then reload this page. The API under <code>/api</code> works without it.</p>
</body></html>
`;
}

/**
 * The studio's files in `dir`, read when asked (so a rebuild is served without a restart).
 * `index()` is `index.html` with the graph's name in its title; `asset(name)` a file of
 * `assets/` (`null` for a name that is not a plain file name there, or a missing file).
 */
export function studioFiles(dir: string) {
  return {
    dir,
    /** `index.html`, or `null` when the studio is not built. */
    async index(graphName: string): Promise<string | null> {
      let html: string;
      try {
        html = await readFile(join(dir, "index.html"), "utf8");
      } catch {
        return null;
      }
      return html.replace(
        /<title>([^<]*)<\/title>/,
        (_, title: string) => `<title>${escapeHtml(graphName)} · ${title}</title>`,
      );
    },
    async asset(name: string): Promise<StudioFile | null> {
      if (!/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(name)) return null;
      const ext = /\.[a-z0-9]+$/i.exec(name)?.[0]?.toLowerCase() ?? "";
      const contentType = CONTENT_TYPES[ext];
      if (!contentType) return null;
      try {
        const body = await readFile(join(dir, "assets", name));
        // Vite names assets by their content's hash: a name always means the same bytes.
        return { body, contentType, cacheControl: "public, max-age=31536000, immutable" };
      } catch {
        return null;
      }
    },
  };
}
