/**
 * `nodestep/bullmq` on the machine's Redis (127.0.0.1:6379, a random key prefix per test,
 * obliterated after) and PostgreSQL (a random schema, dropped after): the executor's checks
 * and polls, a worker in this process, two worker processes running the sub-agents a parent
 * graph submits, and a worker killed in the middle of a sub-agent whose job another worker
 * takes over and resumes from the store.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Worker } from "bullmq";
import pg from "pg";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { caught, expectError } from "../../../test/helpers.js";
import { SOURCE_LOADER } from "../../../test/source-loader.js";
import { AgentState } from "../../agents/index.js";
import type { Message } from "../../chat/index.js";
import { AgentHandleLostError, GraphConfigError, ValueError } from "../../errors/index.js";
import { Graph } from "../../graph/graph.js";
import { node, START } from "../../graph/node.js";
import { END } from "../../graph/routing.js";
import type { AgentJob, AgentResult, DurableAgentHandle } from "../../graph/sub-agents.js";
import { defineState } from "../../state/define-state.js";
import { PostgresStateStore } from "../postgres/index.js";
import { testRegistry } from "./agents.fixture.js";
import { BullMQExecutor, type GraphRegistry, runWorker } from "./index.js";

const PG_URL = "postgres://postgres@127.0.0.1:5432/test";
const connection = { host: "127.0.0.1", port: 6379 };
const root = fileURLToPath(new URL("../../..", import.meta.url));
const fixture = fileURLToPath(new URL("./worker.fixture.ts", import.meta.url));
const tag = randomBytes(4).toString("hex");
const schema = `nodestep_bullmq_${tag}`;
const tmp = mkdtempSync(join(tmpdir(), `nodestep-bullmq-${tag}-`));

let counter = 0;
const executors: BullMQExecutor[] = [];
const workers: Worker[] = [];
const children: ChildProcess[] = [];
const stores: PostgresStateStore[] = [];

/** A fresh Redis key prefix, a temp dir, a store on this file's schema and an executor factory. */
function setup() {
  const n = ++counter;
  const prefix = `nodestep-test-${tag}-${n}`;
  const dir = mkdtempSync(join(tmp, `t${n}-`));
  const store = new PostgresStateStore({ connectionString: PG_URL, schema });
  stores.push(store);
  const executor = (registry: GraphRegistry, name?: string) => {
    const e = new BullMQExecutor({ connection, prefix, registry, ...(name ? { name } : {}) });
    executors.push(e);
    return e;
  };
  return { prefix, dir, store, executor };
}

afterEach(async () => {
  for (const c of children.splice(0))
    if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  for (const w of workers.splice(0)) await w.close(true);
  const all = executors.splice(0);
  // Delete this test's keys (one executor per prefix is enough), then close every connection.
  const prefixes = new Set<string>();
  for (const e of all) {
    const p = e.queue.opts.prefix ?? "";
    if (!prefixes.has(p)) {
      prefixes.add(p);
      await e.queue.obliterate({ force: true });
    }
    await e.close();
  }
  for (const s of stores.splice(0)) await s.close();
});

afterAll(async () => {
  const admin = new pg.Pool({ connectionString: PG_URL, max: 1 });
  try {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await admin.end();
  }
  rmSync(tmp, { recursive: true, force: true });
});

const Boss = defineState({
  topics: z.array(z.string()).default([]),
  handles: z
    .array(z.object({ id: z.string(), threadId: z.string().nullable(), executor: z.string() }))
    .default([]),
  answers: z.array(z.string()).default([]),
});
type B = typeof Boss.State;

/** A parent graph: `submit` submits one researcher per topic; `collect` polls until all are done. */
function bossGraph(
  store: PostgresStateStore,
  registry: GraphRegistry,
  executor: BullMQExecutor,
  options: { collect: boolean } = { collect: true },
) {
  const submit = node(
    async (s: B, ctx) => {
      const handles = await ctx.submit(
        s.topics.map((topic) => ({
          graph: registry.researcher!,
          input: { messages: [{ type: "human", id: null, content: topic }] },
        })),
        { executor },
      );
      return { handles };
    },
    { name: "submit" },
  );
  const collect = node(
    async (s: B, ctx) => {
      const results = await pollUntilDone(() => ctx.pollAgents(s.handles, { executor }));
      return {
        answers: results.map((r) =>
          r.status === "completed"
            ? String((r.state as { finalText: string | null }).finalText)
            : `${r.status}: ${r.error?.name}: ${r.error?.message}`,
        ),
      };
    },
    { name: "collect" },
  );
  const g = new Graph(Boss, { name: "boss", stateStore: store });
  return options.collect
    ? g.flow(START.to(submit), submit.to(collect), collect.to(END))
    : g.flow(START.to(submit), submit.to(END));
}

/** Poll until every result is in; fails after 20 s (only so that a broken test does not hang). */
async function pollUntilDone(poll: () => Promise<(AgentResult | null)[]>): Promise<AgentResult[]> {
  const until = Date.now() + 20_000;
  for (;;) {
    const results = await poll();
    if (results.every((r) => r !== null)) return results as AgentResult[];
    if (Date.now() > until) throw new Error(`gave up polling: ${JSON.stringify(results)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const until = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Start `worker.fixture.ts` as a user would start a worker script; resolves when it is ready. */
async function startWorker(prefix: string, dir: string, name: string, hold = false) {
  const p = spawn(
    process.execPath,
    [...SOURCE_LOADER, fixture, prefix, schema, dir, name, ...(hold ? ["hold"] : [])],
    { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
  );
  children.push(p);
  let out = "";
  let err = "";
  p.stdout?.on("data", (d: Buffer) => {
    out += d.toString();
  });
  p.stderr?.on("data", (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    p.on("exit", (code, signal) => resolve({ code, signal })),
  );
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const until = (line: string) =>
    waitFor(`worker ${name} to print ${line}`, () => {
      if (gone) throw new Error(`worker ${name} exited: ${err}`);
      return out.includes(`${line}\n`);
    });
  await until(hold ? "loaded" : "ready");
  /** Start a held worker; resolves when it is ready. */
  const go = async () => {
    writeFileSync(join(dir, `go-${name}`), "");
    await until("ready");
  };
  return { process: p, exited, stderr: () => err, go };
}

const lines = (path: string) =>
  existsSync(path) ? readFileSync(path, "utf8").trim().split("\n").sort() : [];

const human = (content: string) => ({ messages: [{ type: "human", id: null, content }] });

function job(
  graph: AgentJob["graph"],
  input: Record<string, unknown>,
  extra: Partial<AgentJob> = {},
): AgentJob {
  return {
    id: `sa-test${randomBytes(4).toString("hex")}`,
    graph,
    input,
    context: undefined,
    hasContext: false,
    threadId: null,
    stateStore: null,
    rootRunId: "run-test",
    ...extra,
  };
}

describe("BullMQExecutor", () => {
  it("refuses a graph not in the registry, a non-JSON input or context, before adding any job", async () => {
    const { executor, dir } = setup();
    const registry = testRegistry(dir, "P");
    const ex = executor(registry);
    const stranger = new Graph(null, { name: "stranger" });
    await expectError(
      () => ex.submit([job(registry.researcher!, human("x")), job(stranger, {})]),
      GraphConfigError,
      'Graph "stranger" is not in the BullMQ executor\'s registry (researcher); graphs are code, so the parent and every worker name them in the same registry',
    );
    const e = await caught(() =>
      ex.submit([
        job(registry.researcher!, human("x"), {
          id: "sa-ctx",
          context: { client: new Map() },
          hasContext: true,
        }),
      ]),
    );
    expect(e).toBeInstanceOf(ValueError);
    expect(e.message).toBe(
      'Sub-agent sa-ctx (graph "researcher"): context.client is not JSON (a Map instance is not plain JSON data); the context of a sub-agent on BullMQ must be JSON, since it crosses processes (pass { context: ... } in the task, or give the workers what they need another way)',
    );
    const e2 = await caught(() =>
      ex.submit([job(registry.researcher!, { when: new Date(0) }, { id: "sa-in" })]),
    );
    expect(e2).toBeInstanceOf(ValueError);
    expect(e2.message).toMatch(/^Sub-agent sa-in \(graph "researcher"\): input\.when is not JSON/);
    expect(await ex.queue.getJobCounts("waiting", "active", "completed", "failed")).toEqual({
      waiting: 0,
      active: 0,
      completed: 0,
      failed: 0,
    });
  });

  it("polls null while a job waits; a missing job or another executor's handle is lost", async () => {
    const { executor, dir } = setup();
    const registry = testRegistry(dir, "P");
    const ex = executor(registry);
    const [h] = await ex.submit([job(registry.researcher!, human("x"), { id: "sa-wait1" })]);
    expect(h).toEqual({
      id: "sa-wait1",
      threadId: "bg:sa-wait1",
      executor: "bullmq:nodestep-agents",
    });
    expect(await ex.poll([h!])).toEqual([null]);
    const ghost: DurableAgentHandle = { id: "sa-ghost", threadId: null, executor: ex.name };
    const lost = await expectError(
      () => ex.poll([h!, ghost]),
      AgentHandleLostError,
      'Executor "bullmq:nodestep-agents" does not know sub-agent "sa-ghost": no such job in queue "nodestep-agents" (removed, or submitted to another Redis, prefix or queue)',
    );
    expect(lost.handleId).toBe("sa-ghost");
    await expectError(
      () => ex.poll([{ ...h!, executor: "in-process" }]),
      AgentHandleLostError,
      'Sub-agent "sa-wait1" was submitted to executor "in-process", not "bullmq:nodestep-agents"',
    );
  });
});

describe("runWorker in this process", () => {
  it("runs jobs on the store: results, the context, failures, an unknown graph, and a restarted parent", async () => {
    const { executor, dir, store, prefix } = setup();
    const registry = testRegistry(dir, "P");
    const Ctx = defineState({ seen: z.string().default("") });
    const echo = node((_s: typeof Ctx.State, ctx) => ({ seen: JSON.stringify(ctx.context) }), {
      name: "echo",
    });
    const contextual = new Graph(Ctx, { name: "contextual" }).flow(START.to(echo), echo.to(END));
    const parentRegistry = {
      ...registry,
      contextual,
      unknown: new Graph(null, { name: "unknown" }),
    };
    const ex = executor(parentRegistry);
    workers.push(
      await runWorker({
        connection,
        prefix,
        registry: { ...registry, contextual },
        stateStore: store,
      }),
    );
    const handles = await ex.submit([
      job(registry.researcher!, human("tides"), { id: "sa-ok", threadId: "boss:bg:sa-ok" }),
      job(contextual, {}, { id: "sa-ctx", context: { user: "ada", n: 1 }, hasContext: true }),
      job(registry.researcher!, human("fail"), { id: "sa-fail" }),
      job(parentRegistry.unknown, {}, { id: "sa-unknown" }),
    ]);
    const results = await pollUntilDone(() => ex.poll(handles));
    const ok = results[0]!;
    expect([ok.id, ok.threadId, ok.status, ok.error]).toEqual([
      "sa-ok",
      "boss:bg:sa-ok",
      "completed",
      null,
    ]);
    expect((ok.state as { finalText: string }).finalText).toBe("tides: fact about tides");
    expect(results[1]).toEqual({
      id: "sa-ctx",
      threadId: "bg:sa-ctx",
      status: "completed",
      state: { seen: '{"user":"ada","n":1}' },
      error: null,
    });
    expect(results[2]).toEqual({
      id: "sa-fail",
      threadId: "bg:sa-fail",
      status: "failed",
      state: null,
      error: { name: "RangeError", message: "the model is down" },
    });
    expect(results[3]).toEqual({
      id: "sa-unknown",
      threadId: "bg:sa-unknown",
      status: "failed",
      state: null,
      error: {
        name: "GraphConfigError",
        message:
          'No graph "unknown" in this worker\'s registry (researcher, contextual); register it under the same name as on the parent',
      },
    });
    // The sub-agent's thread is on the shared store.
    const saved = await new Graph(AgentState).getState("boss:bg:sa-ok", { stateStore: store });
    expect((saved.state as { finalText: string }).finalText).toBe("tides: fact about tides");

    // A parent that restarts: handles are plain data, and a new executor on the same queue polls them.
    const reloaded = JSON.parse(JSON.stringify(handles)) as DurableAgentHandle[];
    const again = executor(parentRegistry);
    expect(await again.poll(reloaded)).toEqual(results);
  });
});

describe("two worker processes", () => {
  it("run the sub-agents a parent graph submits; the parent polls until all are done", async () => {
    const { executor, dir, store, prefix } = setup();
    const registry = testRegistry(dir, "P");
    await Promise.all([startWorker(prefix, dir, "A"), startWorker(prefix, dir, "B")]);
    const boss = bossGraph(store, registry, executor(registry));
    const topics = ["tides", "moons", "comets", "auroras"];
    const { state } = await boss.invoke({ topics }, { threadId: "boss-1" });
    expect(state.answers).toEqual(topics.map((t) => `${t}: fact about ${t}`));
    expect(state.handles.map((h) => h.threadId)).toEqual(
      state.handles.map((h) => `boss-1:bg:${h.id}`),
    );
    // Each topic was looked up exactly once, and both workers ran at least one.
    const looked = lines(join(dir, "lookups.log"));
    expect(looked.map((l) => l.split(" ")[1]).sort()).toEqual([...topics].sort());
    expect(new Set(looked.map((l) => l.split(" ")[0]))).toEqual(new Set(["A", "B"]));
  });
});

describe("a worker killed in the middle of a sub-agent", () => {
  it("another worker takes the job over and resumes it from the store, running no finished call again", async () => {
    const { executor, dir, store, prefix } = setup();
    const registry = testRegistry(dir, "P");
    // Worker B is loaded but held back, so that worker A takes the job.
    const [a, b] = await Promise.all([
      startWorker(prefix, dir, "A"),
      startWorker(prefix, dir, "B", true),
    ]);
    const ex = executor(registry);
    // Only the submit node: the parent's run ends with the handles in its state.
    const submitOnly = bossGraph(store, registry, ex, { collect: false });
    const { state } = await submitOnly.invoke({ topics: ["kill"] }, { threadId: "boss-k" });
    const thread = state.handles[0]!.threadId!;

    // Worker A ran "c1" (its result is in the store) and blocks in "c2".
    await waitFor("c1 saved and c2 blocked in worker A", async () => {
      if (!existsSync(join(dir, "blocked"))) return false;
      const events = await store.read(thread, "main");
      return events.some((e) => {
        const cache = (e.data as { cache?: Record<string, unknown> } | null)?.cache;
        return e.type === "task_cache" && cache?.c1 !== undefined;
      });
    });
    a.process.kill("SIGKILL");
    expect(await a.exited).toEqual({ code: null, signal: "SIGKILL" });
    expect(lines(join(dir, "runs.log"))).toEqual(["c1", "c2"]);
    expect(await ex.poll(state.handles)).toEqual([null]);

    // Worker B starts, finds the stalled job once A's lock expires, and continues the run.
    await b.go();
    const restarted = executor(registry); // polled from a new executor, as a restarted parent would
    const [result] = await pollUntilDone(() => restarted.poll(state.handles));
    expect(result!.status).toBe("completed");
    const final = result!.state as unknown as { finalText: string; messages: Message[] };
    expect(final.finalText).toBe("done: recorded first | unblocked");
    expect(final.messages.map((m) => [m.type, m.content])).toEqual([
      ["human", "kill"],
      ["ai", null],
      ["tool", '{"result":"recorded first"}'],
      ["tool", '{"result":"unblocked"}'],
      ["ai", "done: recorded first | unblocked"],
    ]);
    expect(new Set(final.messages.map((m) => m.id)).size).toBe(5);
    // c1 had finished before the kill: only c2 ran again.
    expect(lines(join(dir, "runs.log"))).toEqual(["c1", "c2", "c2"]);

    const reader = new Graph(AgentState, { stateStore: store });
    const after = await reader.getState(thread);
    expect(after.status).toBe("completed");
    expect(after.state.messages).toEqual(final.messages);
    const runs = (await reader.history(thread))
      .filter((e) => ["run_started", "run_finished", "run_failed"].includes(e.type))
      .map((e) => [e.type, (e.data as { input?: unknown } | null)?.input !== undefined]);
    // The first run (worker A, with the input), then its continuation (worker B, no input).
    expect(runs).toEqual([
      ["run_started", true],
      ["run_started", false],
      ["run_finished", false],
    ]);
  });
});
