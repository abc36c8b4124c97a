/**
 * The bench's seeding of LangGraph.js's long threads (bench/common.ts `seedRange`,
 * `driveThread`) and its `--full-threads` flag.
 */
import { afterEach, describe, expect, it } from "vitest";
import { parseArgs, USAGE } from "../bench/bench-args.js";
import { driveThread, FULL_THREADS_ENV, seedRange, tailUs } from "../bench/common.js";

afterEach(() => {
  delete process.env[FULL_THREADS_ENV];
});

describe("seedRange", () => {
  it("seeds turns 101 to T - T/10 from 1,000 turns on, none below", () => {
    expect(seedRange(1000)).toEqual({ from: 101, to: 900 });
    expect(seedRange(2000)).toEqual({ from: 101, to: 1800 });
    expect(seedRange(999)).toBeNull();
    expect(seedRange(200)).toBeNull();
  });

  it("seeds nothing when BENCH_FULL_THREADS is 1", () => {
    process.env[FULL_THREADS_ENV] = "1";
    expect(seedRange(1000)).toBeNull();
  });
});

describe("driveThread with a seed", () => {
  it("writes the seeded turns once, invokes the others in order, samples only invoked turns", async () => {
    const invoked: number[] = [];
    const writes: [number, number][] = [];
    let stored = 0;
    const run = await driveThread(
      1000,
      async (t) => {
        invoked.push(t);
        stored += 10;
      },
      async () => stored,
      {
        range: { from: 101, to: 900 },
        write: async (from, to) => {
          writes.push([from, to]);
          stored += 10 * (to - from + 1);
        },
      },
    );
    expect(writes).toEqual([[101, 900]]);
    expect(invoked).toEqual([
      ...Array.from({ length: 100 }, (_, i) => i + 1),
      ...Array.from({ length: 100 }, (_, i) => i + 901),
    ]);
    expect(run.timesMs).toHaveLength(1000);
    expect(run.timesMs.slice(100, 900).every(Number.isNaN)).toBe(true);
    expect(run.timesMs.slice(900).some(Number.isNaN)).toBe(false);
    expect(Number.isNaN(tailUs(run.timesMs))).toBe(false);
    expect(run.samples.map((s) => [s.turn, s.bytesStored, s.bytesWritten])).toEqual([
      [10, 100, 10],
      [100, 1000, 10],
      [1000, 10000, 10],
    ]);
  });

  it("refuses a seed that would swallow a sampled turn's size", async () => {
    await expect(
      driveThread(
        1000,
        async () => {},
        async () => 0,
        { range: { from: 50, to: 900 }, write: async () => {} },
      ),
    ).rejects.toThrow("driveThread: sampled turn 100 is next to the seeded turns");
  });
});

describe("driveThread's CPU time", () => {
  /** Burn `ms` of this process's CPU time (not wall time: the suite runs beside other work). */
  const spin = (ms: number) => {
    const c0 = process.cpuUsage();
    for (;;) {
      const c = process.cpuUsage(c0);
      if ((c.user + c.system) / 1000 >= ms) return;
    }
  };

  it("counts the invokes of the last 10% of turns, not the size reads between them", async () => {
    const run = await driveThread(
      100,
      async (t) => spin(t > 90 ? 4 : 0),
      async () => {
        spin(30);
        return 0;
      },
    );
    // 10 invokes of 4 CPU ms; the size reads at turns 99 and 100 (30 CPU ms each) are left out.
    expect(run.tailCpuMs).toBeGreaterThanOrEqual(40);
    expect(run.tailCpuMs).toBeLessThan(90);
  });
});

describe("--full-threads", () => {
  it("is off by default and on with the flag", () => {
    expect(parseArgs([]).fullThreads).toBe(false);
    expect(parseArgs(["--full-threads", "--quick"])).toMatchObject({
      fullThreads: true,
      quick: true,
    });
  });
});

describe("--help", () => {
  it("asks for the usage, with -h too, and keeps the other flags", () => {
    expect(parseArgs([]).help).toBe(false);
    expect(parseArgs(["--help"]).help).toBe(true);
    expect(parseArgs(["-h", "--quick"])).toMatchObject({ help: true, quick: true });
  });
  it("shows the one-case worker command in the usage", () => {
    expect(USAGE).toContain("node --import tsx bench/worker.ts nodestep react memory 1000");
  });
});
