/**
 * Whether the process that holds a lease is still alive, for stores whose writers share a
 * machine (SQLite). Internal.
 *
 * A lease records where its owner runs: the machine (`host`: its host name, its boot id and
 * its PID namespace on Linux, so that two containers or two boots never look alike) and the
 * process (`pid`, and on Linux the process's start time, so that a PID reused by a new process
 * is not taken for the old one). A lease whose holder ran on this machine and is gone can be
 * taken over at once; any other lease waits for its time to live.
 *
 * @module
 */
import { readFileSync, readlinkSync } from "node:fs";
import { hostname } from "node:os";

/** Where a lease holder runs. */
export interface LeaseHolder {
  host: string;
  pid: number;
  /** The process's start time (Linux: clock ticks since boot), or `null` where unknown. */
  started: string | null;
}

function tryRead(read: () => string): string {
  try {
    return read().trim();
  } catch {
    return "";
  }
}

/** The start time of process `pid` and its state letter, from `/proc/<pid>/stat` (Linux), or `null`. */
function procStat(pid: number): { state: string; started: string } | null {
  const text = tryRead(() => readFileSync(`/proc/${pid}/stat`, "utf8"));
  // "pid (comm) state ppid ..." — comm may hold spaces and parentheses: split after the last ")".
  const close = text.lastIndexOf(")");
  if (close < 0) return null;
  const fields = text.slice(close + 2).split(" ");
  const state = fields[0];
  const started = fields[19]; // field 22 of the whole line
  return state && started ? { state, started } : null;
}

let self: LeaseHolder | null = null;

/** This process, as a lease records it. */
export function thisProcess(): LeaseHolder {
  if (!self) {
    const boot = tryRead(() => readFileSync("/proc/sys/kernel/random/boot_id", "utf8"));
    const ns = tryRead(() => readlinkSync("/proc/self/ns/pid"));
    self = {
      host: [hostname(), boot, ns].filter((s) => s !== "").join("|"),
      pid: process.pid,
      started: procStat(process.pid)?.started ?? null,
    };
  }
  return self;
}

/**
 * Whether the holder is known to be gone: it ran on this machine (same host key) and no
 * process with its PID runs now, or the one that does started at another time (a reused PID),
 * or it is a zombie. `false` when that cannot be known (another machine, no PID).
 */
export function isGone(holder: {
  host: string | null;
  pid: number | null;
  started: string | null;
}): boolean {
  const me = thisProcess();
  if (holder.host === null || holder.pid === null || holder.host !== me.host) return false;
  if (!Number.isSafeInteger(holder.pid) || holder.pid <= 0) return false;
  if (holder.pid === me.pid)
    return holder.started !== null && me.started !== null && holder.started !== me.started;
  try {
    process.kill(holder.pid, 0);
  } catch (e) {
    // EPERM: a process of another user has that PID; it runs.
    return (e as NodeJS.ErrnoException).code === "ESRCH";
  }
  const stat = procStat(holder.pid);
  if (stat === null) return false;
  if (stat.state === "Z" || stat.state === "X") return true;
  return holder.started !== null && stat.started !== holder.started;
}
