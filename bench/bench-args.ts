/**
 * The flags of `npm run bench` (see the header of bench/run.ts), parsed, and its usage line.
 *
 * @module
 */
import type { Impl } from "./common.js";

/** The flags given, with their defaults. */
export interface Args {
  json: string | null;
  only: string[] | null;
  quick: boolean;
  impls: Impl[];
  reps: number;
  /** LangGraph.js's 1,000-turn threads invoked turn by turn, not seeded (common.ts `seedRange`). */
  fullThreads: boolean;
  /** `--help` or `-h`: print {@link USAGE} and exit 0, running nothing. */
  help: boolean;
}

/**
 * Parse the flags. `--help`/`-h` sets `help` (the other flags are still parsed).
 * @throws Error naming a flag that is unknown or has a bad value.
 */
export function parseArgs(argv: string[]): Args {
  const args: Args = {
    json: null,
    only: null,
    quick: false,
    impls: ["nodestep", "langgraph"],
    reps: 3,
    fullThreads: false,
    help: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === "--help" || a === "-h") args.help = true;
    else if (a === "--json") args.json = value();
    else if (a === "--only") args.only = value().split(",").filter(Boolean);
    else if (a === "--quick") args.quick = true;
    else if (a === "--full-threads") args.fullThreads = true;
    else if (a === "--reps") {
      const v = value();
      args.reps = Number(v);
      if (!Number.isInteger(args.reps) || args.reps < 1)
        throw new Error(`--reps needs a whole number ≥ 1, got ${v}`);
    } else if (a === "--impl") {
      const v = value();
      if (v !== "nodestep" && v !== "langgraph") throw new Error("--impl is nodestep or langgraph");
      args.impls = [v];
    } else throw new Error(`unknown flag ${a}`);
  }
  return args;
}

/** What `--help` and a bad flag print. */
export const USAGE = `usage: npm run bench -- [--json FILE] [--only a,b] [--quick] [--impl nodestep|langgraph] [--reps N] [--full-threads] [--help]
  --only takes workloads (import, loop, react, thread, fanout, postgres, parts, memory, models, cold, streaming, postgres-ab, workers, wide, long, threads), workload/store (react/sqlite)
  or workload/store/param (react/memory/1000); --full-threads: LangGraph.js invokes every turn of its
  1,000-turn threads (by default turns 101-900 are written at once); see the header of bench/run.ts
one case, one side, without the runner: node --import tsx bench/worker.ts <nodestep|langgraph> <workload> <none|memory|sqlite|postgres> <param>
  e.g. node --import tsx bench/worker.ts nodestep react memory 1000 (prints one JSON line)`;
