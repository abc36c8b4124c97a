import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildRefundGraph } from "../cli/fixtures/refund.fixture.js";
import { MemoryStateStore } from "../stores/index.js";
import { createServer } from "./index.js";

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "nodestep-studio-"));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const app = (studioDir: string) =>
  createServer({ graph: buildRefundGraph({ stateStore: new MemoryStateStore() }), studioDir });
const get = (a: ReturnType<typeof app>, path: string) =>
  a.fetch(new Request(`http://127.0.0.1${path}`));

describe("studio routes", () => {
  it("without a build, / answers 500 with a page naming the folder and the command that builds it", async () => {
    const dir = tempDir();
    const res = await get(app(dir), "/");
    expect(res.status).toBe(500);
    expect(res.headers.get("content-type")).toBe("text/html; charset=UTF-8");
    const html = await res.text();
    expect(html).toContain("<h1>The studio's page is not built</h1>");
    expect(html).toContain(`<code>${dir}</code>`);
    expect(html).toContain("<code>npm run build (or node scripts/build-studio.mjs)</code>");
    // The API works without it.
    expect((await get(app(dir), "/api/graph")).status).toBe(200);
  });

  it("serves index.html with the graph's name, and assets by content type; nothing outside assets/", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, "assets"));
    writeFileSync(join(dir, "index.html"), "<title>nodestep studio</title><b>&</b>");
    writeFileSync(join(dir, "assets", "a-1.js"), "export {};");
    writeFileSync(join(dir, "assets", "a-1.css"), "b{}");
    writeFileSync(join(dir, "assets", "notes.txt"), "secret");
    writeFileSync(join(dir, "secret.js"), "secret");
    const a = app(dir);
    const page = await get(a, "/");
    expect([page.status, await page.text()]).toEqual([
      200,
      "<title>refund · nodestep studio</title><b>&</b>",
    ]);
    const js = await get(a, "/assets/a-1.js");
    expect([js.status, js.headers.get("content-type"), await js.text()]).toEqual([
      200,
      "text/javascript; charset=utf-8",
      "export {};",
    ]);
    const css = await get(a, "/assets/a-1.css");
    expect([css.status, css.headers.get("content-type")]).toEqual([200, "text/css; charset=utf-8"]);
    for (const path of ["/assets/notes.txt", "/assets/..%2Fsecret.js", "/assets/.hidden.js"]) {
      const res = await get(a, path);
      expect([path, res.status]).toEqual([path, 404]);
    }
  });
});
