// Graph runs: timeouts, context and cancellation; streaming; plain-object state.
// Shared setup: graph.fixture.ts.
import { describe, expect, it } from "vitest";
import { caught, expectError } from "../../test/helpers.js";
import {
  ContextNotProvidedError,
  NodeTimeoutError,
  RunCancelledError,
  StateUpdateError,
} from "../errors/index.js";
import { type S, State, sleep } from "./graph.fixture.js";
import { Graph } from "./graph.js";
import { node, START } from "./node.js";
import { END } from "./routing.js";
import type { StreamEvent } from "./types.js";

describe("timeouts, context and cancellation", () => {
  it("fails an async node after timeoutMs and aborts its signal", async () => {
    let aborted = false;
    const slow = node(
      async (_s: S, ctx) => {
        ctx.signal.addEventListener("abort", () => {
          aborted = true;
        });
        await sleep(500);
      },
      { name: "slow", timeoutMs: 20 },
    );
    const e = await expectError(
      () => new Graph(State, { name: "g" }).flow(START.to(slow), slow.to(END)).invoke({}),
      NodeTimeoutError,
      'Node "slow" of graph "g" did not finish within 20 ms',
    );
    expect(e.node).toBe("slow");
    expect(e.timeoutMs).toBe(20);
    expect(aborted).toBe(true);
  });

  it("fails a sync node only when it returns", async () => {
    let returned = false;
    const busy = node(
      () => {
        const end = performance.now() + 30;
        while (performance.now() < end) {}
        returned = true;
        return {};
      },
      { name: "busy", timeoutMs: 5 },
    );
    await expectError(
      () => new Graph(State).flow(START.to(busy), busy.to(END)).invoke({}),
      NodeTimeoutError,
      'Node "busy" of graph "graph" did not finish within 5 ms',
    );
    expect(returned).toBe(true);
  });

  it("gives nodes the run's context and raises ContextNotProvidedError without one", async () => {
    const n = node((_s: S, ctx) => ({ topic: (ctx.context as { user: string }).user }), {
      name: "n",
    });
    const g = new Graph(State, { name: "g" }).flow(START.to(n), n.to(END));
    const { state } = await g.invoke({}, { context: { user: "ada" } });
    expect(state.topic).toBe("ada");
    await expectError(
      () => g.invoke({}),
      ContextNotProvidedError,
      'Node "n" of graph "g" read ctx.context, but the run was started without one; pass it as invoke(input, { context }) (and again on resume: it is never stored)',
    );
  });

  it("cancels a run promptly through an AbortSignal", async () => {
    let sawAbort = false;
    const slow = node(
      async (_s: S, ctx) => {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, 5_000);
          ctx.signal.addEventListener("abort", () => {
            sawAbort = true;
            clearTimeout(t);
            resolve();
          });
        });
      },
      { name: "slow" },
    );
    const ac = new AbortController();
    const g = new Graph(State).flow(START.to(slow), slow.to(END));
    const started = performance.now();
    setTimeout(() => ac.abort(), 20);
    const e = await caught(() => g.invoke({}, { signal: ac.signal }));
    expect(e).toBeInstanceOf(RunCancelledError);
    expect(e.message).toBe('Run of graph "graph" was cancelled');
    expect(sawAbort).toBe(true);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("fails the run with a node's own error and fires every sibling's signal at once", async () => {
    const reasons: unknown[] = [];
    const boom = node(
      async () => {
        await sleep(1);
        throw new RangeError("boom");
      },
      { name: "boom" },
    );
    const waiter = (name: string) =>
      node(
        (_s: S, ctx) =>
          new Promise<void>((resolve) =>
            ctx.signal.addEventListener("abort", () => {
              reasons.push(ctx.signal.reason);
              resolve();
            }),
          ),
        { name },
      );
    const one = waiter("one");
    const two = waiter("two");
    const g = new Graph(State).flow(
      START.to([one, boom, two]),
      boom.to(END),
      one.to(END),
      two.to(END),
    );
    const e = await caught(() => g.invoke({}));
    expect(e).toBeInstanceOf(RangeError);
    expect(e.message).toBe("boom");
    // Fired before the caller saw the error, with why.
    expect(reasons).toHaveLength(2);
    for (const r of reasons) {
      expect(r).toBeInstanceOf(RunCancelledError);
      expect((r as Error).message).toBe(
        'Run of graph "graph" stopped: node "boom" (task 0:1) failed',
      );
      expect((r as Error).cause).toBe(e);
    }
  });

  it("stops a sibling's retries when a task fails", async () => {
    let attempts = 0;
    let firstFailed!: () => void;
    const failedOnce = new Promise<void>((r) => {
      firstFailed = r;
    });
    let seen: AbortSignal | null = null;
    const flaky = node(
      async (_s: S, ctx) => {
        seen = ctx.signal;
        attempts++;
        firstFailed();
        throw new Error("flaky");
      },
      { name: "flaky", retry: { maxAttempts: 5, initialIntervalMs: 60_000, jitter: false } },
    );
    const boom = node(
      async () => {
        await failedOnce;
        throw new RangeError("boom");
      },
      { name: "boom" },
    );
    const g = new Graph(State).flow(START.to([flaky, boom]), flaky.to(END), boom.to(END));
    await expectError(() => g.invoke({}), RangeError, "boom");
    expect(seen!.aborted).toBe(true);
    await sleep(0);
    await sleep(0);
    expect(attempts).toBe(1);
  });
});

describe("streaming", () => {
  const a = node(
    (_s: S, ctx) => {
      ctx.emit({ progress: 1 });
      return { count: 1 };
    },
    { name: "a" },
  );
  const b = node(() => ({ log: ["b"] }), { name: "b" });
  const g = new Graph(State).flow(START.to(a), a.to(b), b.to(END));

  it("yields updates, values and custom events with node, step and task id", async () => {
    const events: StreamEvent[] = [];
    for await (const e of g.stream({}, { modes: ["updates", "values", "custom"] })) events.push(e);
    expect(events).toEqual([
      { mode: "custom", node: "a", step: 0, taskId: "0:0", data: { progress: 1 } },
      { mode: "updates", node: "a", step: 0, taskId: "0:0", data: { count: 1 } },
      {
        mode: "values",
        node: null,
        step: 0,
        taskId: null,
        data: { count: 1, log: [], topic: null },
      },
      { mode: "updates", node: "b", step: 1, taskId: "1:0", data: { log: ["b"] } },
      {
        mode: "values",
        node: null,
        step: 1,
        taskId: null,
        data: { count: 1, log: ["b"], topic: null },
      },
    ]);
  });

  it("streams only the modes asked for (updates by default)", async () => {
    const modes: string[] = [];
    for await (const e of g.stream({})) modes.push(e.mode);
    expect(modes).toEqual(["updates", "updates"]);
  });

  it("closes the run when the loop is left early", async () => {
    let aborted = false;
    let afterRan = false;
    const waiting = node(
      async (_s: S, ctx) => {
        ctx.emit("started");
        await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve()));
        aborted = true;
      },
      { name: "waiting" },
    );
    const after = node(
      () => {
        afterRan = true;
      },
      { name: "after" },
    );
    const g2 = new Graph(State).flow(START.to(waiting), waiting.to(after), after.to(END));
    for await (const e of g2.stream({}, { modes: ["custom"] })) {
      if (e.data === "started") break;
    }
    expect(aborted).toBe(true);
    expect(afterRan).toBe(false);
  });

  it("raises the run's error from the loop", async () => {
    const bad = node(() => ({ nope: 1 }) as never, { name: "bad" });
    const g3 = new Graph(State).flow(START.to(bad), bad.to(END));
    const e = await caught(async () => {
      for await (const _ of g3.stream({})) {
      }
    });
    expect(e).toBeInstanceOf(StateUpdateError);
  });
});

describe("plain-object state", () => {
  it("keeps the last write and accepts any JSON field", async () => {
    const a = node(() => ({ x: 1, y: "a" }), { name: "a" });
    const b = node((s: Record<string, unknown>) => ({ x: (s.x as number) + 1 }), { name: "b" });
    const g = new Graph().flow(START.to(a), a.to(b), b.to(END));
    expect((await g.invoke({ z: true })).state).toEqual({ z: true, x: 2, y: "a" });
  });
});
