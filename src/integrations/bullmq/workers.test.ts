/**
 * The done-when test of runs on workers (issue 17): two `nodestep serve --queue` processes and
 * two `nodestep worker` processes on the machine's PostgreSQL and Redis (a schema and key
 * prefix of this test, removed after) run 100 runs started from both servers; one worker is
 * stopped (SIGSTOP) and then killed (SIGKILL) in the middle of at least three of them; every
 * run finishes exactly once (one `run_finished` per thread, no superstep committed twice, the trail of its steps written once each) and its
 * client gets its whole stream (ids 1…N without a gap, every step's events, the end).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { SOURCE_LOADER } from "../../../test/source-loader.js";
import { PostgresStateStore } from "../postgres/index.js";
import { isolation, PG_URL, parseSse, REDIS, type SseEvent, waitFor } from "./sse.fixture.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const main = fileURLToPath(new URL("../../cli/main.ts", import.meta.url));
const target = `${fileURLToPath(new URL("./runs.fixture.ts", import.meta.url))}#buildSteps`;
const iso = isolation("workers");
const children: ChildProcess[] = [];

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  await Promise.all(
    children.map((c) =>
      c.exitCode === null && c.signalCode === null
        ? new Promise((resolve) => c.once("exit", resolve))
        : null,
    ),
  );
  await iso.cleanup();
});

/** Start `nodestep ARGS` (the sources, under tsx) and resolve with its first stdout line. */
async function nodestep(args: string[]) {
  const p = spawn(process.execPath, [...SOURCE_LOADER, main, ...args], {
    cwd: root,
    env: {
      ...process.env,
      TSX_TSCONFIG_PATH: `${root}tsconfig.json`,
      NODESTEP_TEST_STEP_MS: "120",
      NODESTEP_TEST_LEASE_MS: "1000",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(p);
  let out = "";
  let err = "";
  p.stdout!.on("data", (d: Buffer) => {
    out += d.toString();
  });
  p.stderr!.on("data", (d: Buffer) => {
    err += d.toString();
  });
  await waitFor(
    `nodestep ${args[0]} to start`,
    () => {
      if (p.exitCode !== null) throw new Error(`nodestep ${args[0]} exited: ${err}`);
      return out.includes("\n");
    },
    40_000,
  );
  return { process: p, first: out.split("\n")[0]!, stderr: () => err };
}

const EXPECTED = [
  "run",
  "custom:a",
  "updates:a",
  "custom:b",
  "updates:b",
  "custom:c",
  "updates:c",
  "updates:answer",
  "end",
];

function nameOf(e: SseEvent): string {
  if (e.event === "custom") return `custom:${(e.data as { data: { at: string } }).data.at}`;
  if (e.event === "updates") return `updates:${(e.data as { node: string }).node}`;
  return e.event;
}

describe("runs on worker processes", () => {
  it("runs 100 runs from two servers on two workers, one killed mid-run: each finishes once, its whole stream delivered", async () => {
    const store = ["--store", iso.storeUrl];
    const queue = ["--queue", "redis://127.0.0.1:6379", "--queue-prefix", iso.prefix];
    const workerArgs = (n: string) => [
      "worker",
      target,
      ...store,
      "--redis",
      "redis://127.0.0.1:6379",
      "--queue-prefix",
      iso.prefix,
      "--concurrency",
      "12",
      "--lock-ms",
      "1000",
      "--stalled-ms",
      "300",
      "--max-stalled",
      "3",
      "--drain-ms",
      n,
    ];
    const serveArgs = ["serve", target, "--port", "0", ...store, ...queue, "--max-runs", "100"];
    // The schema and its tables, made once before four processes open them.
    const setup = new PostgresStateStore({ connectionString: PG_URL, schema: iso.schema });
    await setup.getBranch("w0", "main");
    await setup.close();
    const [serverA, serverB, doomed, survivor] = await Promise.all([
      nodestep(serveArgs),
      nodestep(serveArgs),
      nodestep(workerArgs("0")),
      nodestep(workerArgs("0")),
    ]);
    const urls = [serverA, serverB].map((s) => /(http:\/\/[^ ]+)\/$/.exec(s.first)![1]!);
    expect(doomed.first).toMatch(
      /^nodestep worker for graph "steps": queue "nodestep-runs" \(prefix "[^"]+"\) on 127\.0\.0\.1:6379 /,
    );

    let finished = 0;
    let killedAt = -1;
    const runIds: string[] = [];
    const runs = Array.from({ length: 100 }, async (_, i) => {
      const res = await fetch(`${urls[i % 2]}/api/threads/w${i}/runs/stream`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ input: { topic: `r${i}` } }),
      });
      const runId = res.headers.get("x-nodestep-run-id");
      if (runId) runIds.push(runId);
      const text = await res.text();
      finished++;
      return { i, status: res.status, runId, events: parseSse(text) };
    });
    const started = Date.now();
    // Kill the doomed worker once 25 runs have ended and it is in the middle of at least 3
    // (their facts in Redis name it as their writer, `<host>/<pid>/…`, and it has written a's
    // events but not c's). The count is taken with the worker stopped (SIGSTOP), so that the
    // runs it counts cannot finish between the count and the SIGKILL; when there are not 3
    // yet, the worker goes on (SIGCONT) and the test looks again.
    const redis = new Redis(REDIS);
    let midway = 0;
    const stopped = { now: false };
    const midwayRuns = async (): Promise<number> => {
      const pipe = redis.pipeline();
      for (const runId of runIds) {
        pipe.hmget(`${iso.prefix}:nodestep-runs:run:${runId}`, "owner", "seq", "status");
      }
      let n = 0;
      for (const [err, fields] of (await pipe.exec()) ?? []) {
        if (err) throw err;
        const [owner, seq, status] = fields as (string | null)[];
        const mine = owner?.split("/")[1] === String(doomed.process.pid);
        if (status === "running" && mine && Number(seq) >= 3 && Number(seq) <= 5) n++;
      }
      return n;
    };
    try {
      await waitFor(
        "the doomed worker to be in the middle of 3 runs",
        async () => {
          // After a quarter of the runs, so that it dies in the middle of the batch.
          if (finished < 25 || (await midwayRuns()) < 3) return false;
          doomed.process.kill("SIGSTOP");
          stopped.now = true;
          midway = await midwayRuns();
          if (midway >= 3) return true;
          doomed.process.kill("SIGCONT");
          stopped.now = false;
          return false;
        },
        30_000,
      );
    } finally {
      redis.disconnect();
    }
    expect(stopped.now).toBe(true);
    expect(midway).toBeGreaterThanOrEqual(3);
    killedAt = finished;
    doomed.process.kill("SIGKILL");
    const results = await Promise.all(runs);
    const took = Date.now() - started;
    expect(killedAt).toBeGreaterThanOrEqual(25);
    expect(killedAt).toBeLessThan(100);
    expect(doomed.process.signalCode).toBe("SIGKILL");

    let resumed = 0;
    for (const r of results) {
      expect(r.status, `run ${r.i}`).toBe(200);
      const names = r.events.map(nameOf);
      // The whole stream: ids 1…N without a gap, the run's id, every step once at least, the end.
      expect(
        r.events.map((e) => e.id),
        `run ${r.i}`,
      ).toEqual(r.events.map((_, k) => k + 1));
      expect(r.events[0]!.data, `run ${r.i}`).toEqual({
        threadId: `w${r.i}`,
        branchId: "main",
        runId: r.runId,
      });
      expect(r.events.at(-1)!.data, `run ${r.i}`).toMatchObject({
        status: "completed",
        state: { topic: `r${r.i}`, trail: ["a", "b", "c"], answer: `r${r.i}: a b c` },
      });
      if (names.includes("resumed")) {
        resumed++;
        // A takeover runs the superstep in progress again: its events may come twice.
        expect([...new Set(names.filter((n) => n !== "resumed"))], `run ${r.i}`).toEqual(EXPECTED);
        expect(
          names.filter((n) => n === "resumed"),
          `run ${r.i}`,
        ).toEqual(["resumed"]);
      } else {
        expect(names, `run ${r.i}`).toEqual(EXPECTED);
      }
    }
    // The killed worker had runs going: the survivor took them over, at least those it was
    // frozen in the middle of.
    expect(resumed).toBeGreaterThanOrEqual(midway);

    // The store: each thread finished once, no superstep committed twice.
    let storeTakeovers = 0;
    const check = new PostgresStateStore({ connectionString: PG_URL, schema: iso.schema });
    try {
      for (const r of results) {
        const events = await check.read(`w${r.i}`, "main");
        expect(events.filter((e) => e.type === "run_finished").length, `thread w${r.i}`).toBe(1);
        const steps = events.filter((e) => e.type === "step_committed").map((e) => e.step);
        expect(steps, `thread w${r.i}`).toEqual([...new Set(steps)]);
        expect(steps.length, `thread w${r.i}`).toBe(4);
        const parts = new Set(events.filter((e) => e.type === "run_started").map((e) => e.runId));
        if (parts.size > 1) storeTakeovers++;
        // The first part has the server's run id; a part after a takeover `<runId>~<n>`.
        expect(events[0]!.runId, `thread w${r.i}`).toBe(r.runId);
        for (const id of parts)
          expect(id, `thread w${r.i}`).toMatch(new RegExp(`^${r.runId}(~[0-9]+)?$`));
      }
    } finally {
      await check.close();
    }
    console.log(
      `100 runs on 2 servers and 2 workers (one killed after ${killedAt} ended, in the middle of ${midway}): ${took} ms; ${resumed} streams resumed, ${storeTakeovers} threads continued by a second part`,
    );

    // Ctrl-C (SIGINT here: what main.ts handles): the survivor and the servers stop cleanly.
    const exits = [survivor, serverA, serverB].map(
      (p) =>
        new Promise<number | null>((resolve) => p.process.once("exit", (code) => resolve(code))),
    );
    for (const p of [survivor, serverA, serverB]) p.process.kill("SIGINT");
    expect(await Promise.all(exits)).toEqual([0, 0, 0]);
  }, 90_000);
});
