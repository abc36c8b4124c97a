/**
 * The random graphs of the model-based tests (test/durable/model-based.test.ts, and the SIGKILL
 * runs of test/durable/model-kill.test.ts through fixtures/model-child.ts): a seeded plan of
 * stages — fan-out, `Send`, subgraphs fresh and stable, several interrupts per node, retries,
 * nodes that fail once, nodes that time out once — built into a graph, and a driver that
 * answers every interrupt.
 */
import { z } from "zod";
import { GraphExecutionError } from "../../src/errors/index.js";
import { Graph, type NodeContext, node, Send, START, subgraph } from "../../src/graph/index.js";
import { END } from "../../src/graph/routing.js";
import { defineState, reducer } from "../../src/state/index.js";
import type { StateStore, StoredEvent } from "../../src/stores/types.js";

export const State = defineState({
  log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
  item: z.string().default(""),
});
export type S = typeof State.State;

/** A small seeded PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Stage =
  | { kind: "plain" | "flaky" | "slow"; name: string }
  | { kind: "ask"; name: string; asks: number }
  | { kind: "fan"; name: string; asks: number[] }
  | { kind: "send"; name: string; items: number; asks: number }
  | { kind: "sub"; name: string; childThread: "fresh" | "stable"; asks: number[] };

export function plan(seed: number): Stage[] {
  const r = rng(seed);
  const pick = (n: number) => Math.floor(r() * n);
  const stages: Stage[] = [];
  const count = 1 + pick(4);
  for (let i = 0; i < count; i++) {
    const name = `s${i}`;
    switch (pick(7)) {
      case 0:
        stages.push({ kind: "plain", name });
        break;
      case 6:
        stages.push({ kind: "slow", name });
        break;
      case 1:
        stages.push({ kind: "flaky", name });
        break;
      case 2:
        stages.push({ kind: "ask", name, asks: 1 + pick(3) });
        break;
      case 3:
        stages.push({ kind: "fan", name, asks: [pick(3), pick(3), pick(2)].slice(0, 2 + pick(2)) });
        break;
      case 4:
        stages.push({ kind: "send", name, items: 1 + pick(3), asks: pick(3) });
        break;
      default:
        stages.push({
          kind: "sub",
          name,
          childThread: r() < 0.5 ? "fresh" : "stable",
          asks: [1 + pick(2), pick(3)],
        });
    }
  }
  return stages;
}

/** What the nodes saw, per mode: finished tasks (must be unique) and the answers they got. */
export interface Seen {
  finished: string[];
  attempts: Map<string, number>;
}

/** A node that asks `asks` times (default keys) and logs each answer with its key. */
function asking(name: string, asks: number, seen: Seen) {
  return (s: S, ctx: NodeContext) => {
    const got: string[] = [];
    for (let i = 0; i < asks; i++) {
      const key = `${ctx.taskId}#${i}`;
      const a = ctx.interrupt(`${name} ${i}?`);
      got.push(`${name}${s.item ? `[${s.item}]` : ""}:${key}=${String(a)}`);
    }
    seen.finished.push(`${ctx.threadId}|${ctx.branchId}|${ctx.step}|${ctx.taskId}`);
    return { log: got.length > 0 ? got : [`${name}${s.item ? `[${s.item}]` : ""}`] };
  };
}

export function build(stages: Stage[], store: StateStore, seen: Seen): Graph<typeof State> {
  const nodes: ReturnType<typeof node<S>>[][] = [];
  const extra: ReturnType<typeof node<S>>[] = [];
  for (const st of stages) {
    switch (st.kind) {
      case "plain":
        nodes.push([node(asking(st.name, 0, seen), { name: st.name })]);
        break;
      case "flaky":
        nodes.push([
          node(
            (s: S, ctx: NodeContext) => {
              const k = `${ctx.runId}|${ctx.threadId}|${ctx.taskId}`;
              const n = (seen.attempts.get(k) ?? 0) + 1;
              seen.attempts.set(k, n);
              if (n === 1) throw new Error("fails once");
              return asking(st.name, 0, seen)(s, ctx);
            },
            { name: st.name, retry: { maxAttempts: 2, initialIntervalMs: 1, jitter: false } },
          ),
        ]);
        break;
      case "slow":
        // Times out (NodeTimeoutError after 30 ms) on its first attempt of a run, and is retried.
        nodes.push([
          node(
            async (s: S, ctx: NodeContext) => {
              const k = `${ctx.runId}|${ctx.threadId}|${ctx.taskId}`;
              const n = (seen.attempts.get(k) ?? 0) + 1;
              seen.attempts.set(k, n);
              if (n === 1) {
                // Waits past its time-out; the abandoned attempt stops when its signal fires.
                await new Promise<void>((r) => {
                  const timer = setTimeout(r, 300);
                  ctx.signal.addEventListener("abort", () => {
                    clearTimeout(timer);
                    r();
                  });
                });
                ctx.signal.throwIfAborted();
              }
              return asking(st.name, 0, seen)(s, ctx);
            },
            {
              name: st.name,
              timeoutMs: 30,
              retry: { maxAttempts: 2, initialIntervalMs: 1, jitter: false },
            },
          ),
        ]);
        break;
      case "ask":
        nodes.push([node(asking(st.name, st.asks, seen), { name: st.name })]);
        break;
      case "fan":
        nodes.push(
          st.asks.map((a, i) =>
            node(asking(`${st.name}.${i}`, a, seen), { name: `${st.name}.${i}` }),
          ),
        );
        break;
      case "send": {
        const worker = node(asking(`${st.name}.w`, st.asks, seen), { name: `${st.name}.w` });
        const items = Array.from({ length: st.items }, (_, i) => `i${i}`);
        const fan = node(
          (_s: S, ctx: NodeContext) => {
            seen.finished.push(`${ctx.threadId}|${ctx.branchId}|${ctx.step}|${ctx.taskId}`);
            return items.map((item) => new Send(worker, { item }));
          },
          { name: st.name, goto: [worker] },
        );
        nodes.push([fan]);
        extra.push(worker);
        break;
      }
      case "sub": {
        const c1 = node(asking(`${st.name}.c1`, st.asks[0]!, seen), { name: "c1" });
        const c2 = node(asking(`${st.name}.c2`, st.asks[1]!, seen), { name: "c2" });
        const child = new Graph(State, { name: `${st.name}-child` }).flow(
          START.to(c1),
          c1.to(c2),
          c2.to(END),
        );
        nodes.push([
          subgraph<S, S>(st.name, child, {
            stateIn: (p) => ({ item: p.item }),
            stateOut: (c) => ({ log: c.log }),
            childThread: st.childThread,
          }),
        ]);
        break;
      }
    }
  }
  const edges: unknown[] = [START.to(nodes[0]!)];
  for (let i = 0; i < nodes.length; i++) {
    const next = i + 1 < nodes.length ? nodes[i + 1]! : END;
    const stage = stages[i]!;
    if (stage.kind === "send") {
      const worker = extra.find((w) => w.name === `${stage.name}.w`)!;
      edges.push(worker.to(next as never));
    } else for (const n of nodes[i]!) edges.push(n.to(next as never));
  }
  return new Graph(State, { name: "model", stateStore: store }).flow(
    ...(edges as Parameters<Graph<typeof State>["flow"]>),
  );
}

/**
 * Run a thread's branch to its end, answering every interrupt with a value made from its key:
 * from the input `{ log: ["in"] }` (`from: "start"`, the default on "main"), or from where it
 * is with `invoke(null)` (`"continue"`, the default on a fork).
 */
export async function drive(
  seed: number,
  graphFor: () => Promise<Graph<typeof State>>,
  branchId = "main",
  from: "start" | "continue" = branchId === "main" ? "start" : "continue",
): Promise<{ state: S; asked: string[] }> {
  const r = rng(seed ^ 0x5bd1e995);
  const asked: string[] = [];
  const at = { threadId: "t", branchId };
  let res = await (await graphFor()).invoke(from === "start" ? { log: ["in"] } : null, at);
  for (let turn = 0; res.status === "interrupted"; turn++) {
    if (turn > 60) throw new Error("too many turns");
    const keys = res.interrupts.map((i) => i.key);
    asked.push(...keys);
    // Answer all, or only the first (the rest pause again).
    const give = r() < 0.5 ? keys : keys.slice(0, 1);
    const resume = Object.fromEntries(give.map((k) => [k, `ans(${branchId}:${k})`]));
    res = await (await graphFor()).invoke(null, { ...at, resume });
  }
  return { state: res.state, asked };
}

/**
 * How a fork's run ended: its state and what it asked, or the refusal of a "stable" child that
 * had not paused as of a fork of a fork (docs/threads-and-interrupts.md; the random forks are
 * of "main", so it does not happen there) — the same warm and cold. Any other error fails the seed.
 */
export async function onFork(
  run: Promise<{ state: S; asked: string[] }>,
): Promise<{ state: S; asked: string[] } | { refused: string }> {
  try {
    return await run;
  } catch (e) {
    if (e instanceof GraphExecutionError && /a "stable" child cannot start/.test(e.message)) {
      return { refused: e.message };
    }
    throw e;
  }
}

/** What an event says about the position, without ids, run ids and times. */
export function shape(e: StoredEvent): unknown[] {
  return [e.seq, e.type, e.step, e.taskId, e.node];
}

/**
 * Each logged answer is the one made for the key its task asked under.
 * @throws Error naming the first line whose answer is another key's.
 */
export function checkAnswers(state: S): void {
  for (const line of state.log) {
    const m = /:([^=]+)=(.*)$/.exec(line);
    if (!m) continue;
    const [, key, answer] = m;
    // The child's local key ends the answer made for the parent's key (`<task>/<key>`).
    if (!answer!.endsWith(`${key})`)) throw new Error(`an answer reached another task: ${line}`);
  }
}
