/** `nodestep serve --prices <file>`: the usage routes' cost; a bad file is a usage error. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { runCli } from "./program.js";

const dir = mkdtempSync(join(tmpdir(), "nodestep-cli-prices-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const GRAPH = "src/cli/fixtures/refund.fixture.ts#buildRefundGraph";

function cli(args: string[], onListening?: (url: string) => Promise<void>) {
  let stdout = "";
  let stderr = "";
  const controller = new AbortController();
  const code = runCli(args, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    env: {},
    signal: controller.signal,
    onListening: (url) => {
      void onListening?.(url).finally(() => controller.abort());
    },
  });
  return code.then((c) => ({ code: c, stdout, stderr }));
}

it("serve --prices prices the usage of the thread routes", async () => {
  const file = join(dir, "prices.json");
  writeFileSync(
    file,
    JSON.stringify({ "gpt-4o-mini": { inputPerMillion: 0.15, outputPerMillion: 0.6 } }),
  );
  let usage: unknown;
  const r = await cli(
    ["serve", GRAPH, "--port", "0", "--store", "memory", "--prices", file],
    async (url) => {
      await fetch(`${url}/api/threads/t1/runs`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ message: "Refund 20 please" }),
      });
      usage = await (await fetch(`${url}/api/threads/t1/usage`)).json();
    },
  );
  expect(r.code).toBe(0);
  // The fixture's model reports no usage: zero tokens, priced at zero (not null: prices were given).
  expect(usage).toEqual({
    threadId: "t1",
    branchId: "main",
    usage: {
      inputTokens: 0,
      outputTokens: 0,
      totalTokens: 0,
      cachedInputTokens: 0,
      reasoningTokens: 0,
      calls: 0,
    },
    byModel: {},
    cost: { usd: 0, byModel: {}, unpriced: [] },
  });
});

it("a price file that is not JSON or not a price table is a usage error (exit 2)", async () => {
  const bad = join(dir, "bad.json");
  writeFileSync(bad, "{ not json");
  const r1 = await cli(["serve", GRAPH, "--port", "0", "--store", "memory", "--prices", bad]);
  expect(r1.code).toBe(2);
  expect(r1.stderr).toMatch(
    new RegExp(`^nodestep: --prices: ${bad.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} is not JSON: `),
  );
  const wrong = join(dir, "wrong.json");
  writeFileSync(wrong, JSON.stringify({ m: { inputPerMillion: 1 } }));
  const r2 = await cli(["serve", GRAPH, "--port", "0", "--store", "memory", "--prices", wrong]);
  expect(r2.code).toBe(2);
  expect(r2.stderr).toBe(
    `nodestep: --prices ${wrong}["m"].outputPerMillion must be a number ≥ 0 (US dollars per million tokens), got nothing\n`,
  );
});
