/** Issue 18 item 6: `nodestep serve --watch` loads the graph module again when it changes. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "vitest";
import { runCli } from "./program.js";

const dir = mkdtempSync(join(tmpdir(), "nodestep-watch-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const graphIndex = fileURLToPath(new URL("../graph/index.ts", import.meta.url));
const stateIndex = fileURLToPath(new URL("../state/index.ts", import.meta.url));

/** A graph factory module whose flow runs `names` in a row. */
function moduleText(names: string[]): string {
  return [
    `import { END, Graph, node, START } from ${JSON.stringify(graphIndex)};`,
    `import { defineState } from ${JSON.stringify(stateIndex)};`,
    `import { z } from "zod";`,
    `const State = defineState({ log: z.array(z.string()).default([]) });`,
    `export function build({ stateStore }) {`,
    `  const nodes = ${JSON.stringify(names)}.map((name) => node((s) => ({ log: [...s.log, name] }), { name }));`,
    `  const edges = [START.to(nodes[0]), ...nodes.slice(1).map((n, i) => nodes[i].to(n)), nodes.at(-1).to(END)];`,
    `  return new Graph(State, { name: "watched", stateStore }).flow(...edges);`,
    `}`,
    "",
  ].join("\n");
}

const getJson = async (url: string) =>
  (await fetch(url)).json() as Promise<Record<string, unknown>>;

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

it("reloads the graph on change, keeps the store's threads, and keeps serving after a broken edit", async () => {
  const file = join(dir, "graph.mjs");
  writeFileSync(file, moduleText(["a"]));
  let stdout = "";
  let stderr = "";
  const controller = new AbortController();
  const seen: unknown[] = [];
  const code = await runCli(
    ["serve", `${file}#build`, "--watch", "--port", "0", "--store", "memory"],
    {
      stdout: (t) => {
        stdout += t;
      },
      stderr: (t) => {
        stderr += t;
      },
      env: {},
      signal: controller.signal,
      onListening: (url) => {
        void (async () => {
          seen.push((await getJson(`${url}/api/graph`)).nodes);
          const run = await fetch(`${url}/api/threads/t1/runs`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ input: {} }),
          });
          seen.push(((await run.json()) as { state: unknown }).state);
          writeFileSync(file, moduleText(["a", "b"]));
          const after = await until(
            async () => (await getJson(`${url}/api/graph`)).nodes,
            (n) => JSON.stringify(n) === '["a","b"]',
          );
          seen.push(after);
          // The same store: the thread run before the reload is still there.
          seen.push(
            ((await getJson(`${url}/api/threads/t1/state`)).state as { log: string[] }).log,
          );
          writeFileSync(file, "export function build( {");
          await until(
            async () => stderr,
            (e) => e.includes("failed"),
          );
          seen.push((await getJson(`${url}/api/graph`)).nodes);
        })().finally(() => controller.abort());
      },
    },
  );
  expect(code).toBe(0);
  expect(seen).toEqual([["a"], { log: ["a"] }, ["a", "b"], ["a"], ["a", "b"]]);
  expect(stdout).toContain(`reloaded ${file}: graph "watched" (2 nodes)\n`);
  expect(stderr).toMatch(
    new RegExp(
      `^nodestep: reloading ${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} failed, still serving the graph loaded before: `,
    ),
  );
});
