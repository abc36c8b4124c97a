/**
 * A randomized model-based test (issue 13): random graphs — fan-out, `Send`, subgraphs fresh
 * and stable, several interrupts per node, retries, nodes that fail once — run two ways:
 * uninterrupted on one graph object over a memory store (warm), and with a new graph object
 * and a new SQLite store instance over the same file for every call (cold). Both must reach the
 * same final state, deliver each answer to the task that asked, and never finish a task twice.
 * Then each forks the thread at the same random event and runs the fork to its end: warm and
 * cold again agree, and the main branch is left as it was.
 *
 * A failure names its seed. Replay one: `NODESTEP_SEED=123 npx vitest run --project default test/durable/model-based.test.ts`;
 * more seeds: `NODESTEP_SEEDS=5000 npx vitest run --project default test/durable/model-based.test.ts`.
 */
import { expect, it } from "vitest";
import { SqliteStateStore } from "../../src/integrations/sqlite/index.js";
import { MemoryStateStore } from "../../src/stores/index.js";
import { build, checkAnswers, drive, onFork, plan, rng, type Seen, shape } from "./model-graphs.js";
import { newSqlitePath } from "./stores.js";

const seeds = process.env.NODESTEP_SEED
  ? [Number(process.env.NODESTEP_SEED)]
  : Array.from({ length: Number(process.env.NODESTEP_SEEDS ?? 300) }, (_, i) => i + 1);

/** A second a seed at most, and no less than two minutes. */
const TIMEOUT_MS = Math.max(120_000, seeds.length * 1_000);

it(
  `random graphs reach the same end warm in memory and cold on SQLite (${seeds.length} seeds)`,
  async () => {
    for (const seed of seeds) {
      const stages = plan(seed);
      try {
        const warmSeen: Seen = { finished: [], attempts: new Map() };
        const mem = new MemoryStateStore();
        const warmGraph = build(stages, mem, warmSeen);
        const warm = await drive(seed, async () => warmGraph);

        const coldSeen: Seen = { finished: [], attempts: new Map() };
        const path = newSqlitePath();
        const opened: SqliteStateStore[] = [];
        const coldGraph = async () => {
          for (const s of opened.splice(0)) await s.close();
          const s = new SqliteStateStore({ path });
          opened.push(s);
          return build(stages, s, coldSeen);
        };
        const cold = await drive(seed, coldGraph);

        expect(cold.state).toEqual(warm.state);
        expect(cold.asked).toEqual(warm.asked);
        checkAnswers(warm.state);

        // A fork at a random event of the main branch, run to its end: warm and cold again agree,
        // and the main branch is left as it was.
        const warmLog = await warmGraph.history("t");
        const coldLog = await (await coldGraph()).history("t");
        expect(coldLog.map(shape)).toEqual(warmLog.map(shape));
        const at = Math.floor(rng(seed ^ 0x2545f491)() * warmLog.length);
        await warmGraph.fork("t", { eventId: warmLog[at]!.id, branchId: "f" });
        await (await coldGraph()).fork("t", { eventId: coldLog[at]!.id, branchId: "f" });
        const warmFork = await onFork(drive(seed + 1, async () => warmGraph, "f"));
        const coldFork = await onFork(drive(seed + 1, coldGraph, "f"));
        expect(coldFork).toEqual(warmFork);
        if ("state" in warmFork) checkAnswers(warmFork.state);
        expect((await warmGraph.getState("t")).state).toEqual(warm.state);
        expect((await (await coldGraph()).getState("t")).state).toEqual(warm.state);
        for (const s of opened.splice(0)) await s.close();

        for (const seen of [warmSeen, coldSeen]) {
          expect(new Set(seen.finished).size, "a finished task ran twice").toBe(
            seen.finished.length,
          );
        }
      } catch (e) {
        throw new Error(
          `model-based test failed for seed ${seed} (${JSON.stringify(stages)}); replay: NODESTEP_SEED=${seed} npx vitest run --project default test/durable/model-based.test.ts\n${(e as Error).message}`,
          { cause: e },
        );
      }
    }
  },
  TIMEOUT_MS,
);
