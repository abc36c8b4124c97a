/** `nodestep serve --max-runs <n>`: one run more than n at once answers 429; a bad n is a usage error. */
import { expect, it } from "vitest";
import { runCli } from "./program.js";

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

const post = (url: string, path: string, body: unknown) =>
  fetch(url + path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

it("serve --max-runs 1 refuses a second run while one goes on, with 429", async () => {
  let refused: { status: number; body: unknown } | null = null;
  const r = await cli(
    ["serve", GRAPH, "--port", "0", "--store", "memory", "--max-runs", "1"],
    async (url) => {
      // "slowly": the fixture's plan waits 3 s, or until the run is cancelled.
      const started = await post(url, "/api/threads/t1/runs", {
        message: "refund 5 slowly",
        detach: true,
      });
      const { runId } = (await started.json()) as { runId: string };
      const second = await post(url, "/api/threads/t2/runs", { message: "refund 5" });
      refused = { status: second.status, body: await second.json() };
      await post(url, `/api/threads/t1/runs/${runId}/cancel`, {});
    },
  );
  expect(r.code).toBe(0);
  expect(refused).toEqual({
    status: 429,
    body: {
      error: {
        type: "TooManyRuns",
        message: "This server runs at most 1 runs at once; try again when one has finished",
      },
    },
  });
});

it("--max-runs that is not an integer ≥ 1 is a usage error (exit 2)", async () => {
  const r = await cli(["serve", GRAPH, "--port", "0", "--store", "memory", "--max-runs", "0"]);
  expect(r.code).toBe(2);
  expect(r.stderr).toBe('nodestep: --max-runs must be an integer ≥ 1, got "0"\n');
});
