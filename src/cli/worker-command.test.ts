/**
 * `nodestep worker` and `serve --queue` / `--drain-ms`: usage errors (exit 2), the Redis URL,
 * a worker that starts and stops on Ctrl-C (exit 0), and serve's Ctrl-C with a detached run
 * going on: waited for, or cancelled after `--drain-ms`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { isolation } from "../integrations/bullmq/sse.fixture.js";
import { SqliteStateStore } from "../integrations/sqlite/index.js";
import { runCli } from "./program.js";
import { redisOptionsOf } from "./worker-command.js";

const REFUND = "src/cli/fixtures/refund.fixture.ts#buildRefundGraph";
const STEPS = "src/integrations/bullmq/runs.fixture.ts#buildSteps";

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
      void (onListening?.(url) ?? Promise.resolve()).finally(() => controller.abort());
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

it("reads redis:// and rediss:// URLs, and refuses others", () => {
  expect(redisOptionsOf("redis://u:p%40w@h:6380/2", "--redis")).toEqual({
    host: "h",
    port: 6380,
    db: 2,
    username: "u",
    password: "p@w",
  });
  expect(redisOptionsOf("rediss://cache.example", "--queue")).toEqual({
    host: "cache.example",
    port: 6379,
    tls: {},
  });
  expect(() => redisOptionsOf("http://h", "--redis")).toThrow(
    '--redis must be a redis:// or rediss:// URL, got "http://h"',
  );
  expect(() => redisOptionsOf("redis://h/x", "--queue")).toThrow(
    '--queue: the path of a Redis URL is a database number, got "/x"',
  );
});

it("worker and serve --queue usage errors exit 2 with what was wrong", async () => {
  expect(await cli(["worker", STEPS, "--store", "memory"])).toEqual({
    code: 2,
    stdout: "",
    stderr: "nodestep: give the queue's Redis: --redis redis://host:port (or set NODESTEP_REDIS)\n",
  });
  expect(
    await cli(["worker", STEPS, "--store", "memory", "--redis", "redis://h", "--concurrency", "0"]),
  ).toEqual({
    code: 2,
    stdout: "",
    stderr: 'nodestep: --concurrency must be an integer ≥ 1, got "0"\n',
  });
  expect(
    await cli(["serve", STEPS, "--port", "0", "--store", "memory", "--queue", "redis://h"]),
  ).toEqual({
    code: 2,
    stdout: "",
    stderr:
      "nodestep: --queue: the workers run on the store too, and a memory store is this process's only; give --store postgres://…\n",
  });
  expect(await cli(["serve", STEPS, "--store", "memory", "--queue", "x"])).toEqual({
    code: 2,
    stdout: "",
    stderr: 'nodestep: --queue must be a redis:// URL, got "x"\n',
  });
});

it("a worker or a server whose Redis cannot be reached exits 1 at once, saying so", async () => {
  const refused = "cannot reach Redis at 127.0.0.1:1 (connect ECONNREFUSED 127.0.0.1:1)";
  expect(
    await cli(["worker", STEPS, "--store", "sqlite::memory:", "--redis", "redis://127.0.0.1:1"]),
  ).toEqual({ code: 1, stdout: "", stderr: `nodestep: --redis: ${refused}\n` });
  const iso = isolation("clitest");
  try {
    expect(
      await cli([
        "serve",
        STEPS,
        "--port",
        "0",
        "--store",
        iso.storeUrl,
        "--queue",
        "redis://127.0.0.1:1",
      ]),
    ).toEqual({ code: 1, stdout: "", stderr: `nodestep: --queue: ${refused}\n` });
  } finally {
    await iso.cleanup();
  }
});

it("a worker starts, says what it serves, and stops on Ctrl-C with exit 0", async () => {
  const iso = isolation("clitest");
  try {
    const r = await cli([
      "worker",
      STEPS,
      "--store",
      iso.storeUrl,
      "--redis",
      "redis://127.0.0.1:6379",
      "--queue-prefix",
      iso.prefix,
    ]);
    expect(r).toEqual({
      code: 0,
      stdout:
        `nodestep worker for graph "steps": queue "nodestep-runs" (prefix "${iso.prefix}") on 127.0.0.1:6379 · store: ` +
        `${iso.storeUrl} · 4 at once\nstopped\n`,
      stderr: "",
    });
  } finally {
    await iso.cleanup();
  }
});

it("the worker's old --prefix still works; with a --queue-prefix that differs it is a usage error", async () => {
  const iso = isolation("clitest");
  try {
    const args = ["worker", STEPS, "--store", iso.storeUrl, "--redis", "redis://127.0.0.1:6379"];
    expect(await cli([...args, "--prefix", iso.prefix])).toEqual({
      code: 0,
      stdout:
        `nodestep worker for graph "steps": queue "nodestep-runs" (prefix "${iso.prefix}") on 127.0.0.1:6379 · store: ` +
        `${iso.storeUrl} · 4 at once\nstopped\n`,
      stderr: "",
    });
    expect(await cli([...args, "--prefix", "a", "--queue-prefix", "b"])).toEqual({
      code: 2,
      stdout: "",
      stderr: 'nodestep: --queue-prefix "b" and --prefix "a" (its old name) differ: give one\n',
    });
    const help = await cli(["worker", "--help"]);
    expect(help.stdout).toContain("--queue-prefix <prefix>");
    expect(help.stdout).not.toContain("--prefix <prefix>");
  } finally {
    await iso.cleanup();
  }
});

it("serve --queue says its queue's name and prefix, and warns when no worker takes runs from it", async () => {
  const iso = isolation("clitest");
  try {
    const r = await cli([
      "serve",
      STEPS,
      "--port",
      "0",
      "--store",
      iso.storeUrl,
      "--queue",
      "redis://127.0.0.1:6379",
      "--queue-prefix",
      iso.prefix,
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n")[1]).toMatch(
      new RegExp(
        `^API: http://127\\.0\\.0\\.1:[0-9]+/api · store: .* · runs queued on 127\\.0\\.0\\.1:6379, queue "nodestep-runs" \\(prefix "${iso.prefix}"\\)$`,
      ),
    );
    expect(r.stderr).toBe(
      `nodestep: warning: no worker is taking runs from queue "nodestep-runs" (prefix "${iso.prefix}"): queued runs wait until one starts on the same Redis, queue prefix and queue name (nodestep worker --queue-prefix … --queue-name …)\n`,
    );
  } finally {
    await iso.cleanup();
  }
});

it("serve's Ctrl-C cancels a detached run still going after --drain-ms, and waits for one that ends", async () => {
  const dir = mkdtempSync(join(tmpdir(), "nodestep-drain-"));
  const spec = `sqlite:${join(dir, "t.db")}`;
  try {
    const detach = (thread: string) => async (url: string) => {
      // "slowly": the fixture's plan waits 3 s, or until the run is cancelled.
      const started = await post(url, `/api/threads/${thread}/runs`, {
        message: "refund 5 slowly",
        detach: true,
      });
      expect(started.status).toBe(202);
    };
    const cancelled = await cli(
      ["serve", REFUND, "--port", "0", "--store", spec, "--drain-ms", "50"],
      detach("t1"),
    );
    expect(cancelled.code).toBe(0);
    expect(cancelled.stderr).toBe("nodestep: cancelled 1 run(s) still going\n");
    expect(cancelled.stdout.endsWith("stopped\n")).toBe(true);
    const waited = await cli(
      ["serve", REFUND, "--port", "0", "--store", spec, "--drain-ms", "20000"],
      detach("t2"),
    );
    expect(waited).toMatchObject({ code: 0, stderr: "" });
    const store = new SqliteStateStore({ path: join(dir, "t.db") });
    try {
      const types = async (t: string) => (await store.read(t, "main")).map((e) => e.type);
      // Cancelled: it failed before its first commit. Waited for: it ran to its end.
      expect(await types("t1")).toEqual(["run_started", "run_failed"]);
      expect(await types("t2")).toEqual([
        "run_started",
        "step_committed",
        "step_committed",
        "run_finished",
      ]);
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
