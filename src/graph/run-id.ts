/**
 * Run ids: `run-<process prefix>-<counter>`.
 *
 * @module
 */
import { memo, nodeCrypto } from "../lazy.js";

let runCounter = 0;
/** The process prefix of run ids, drawn on the first run. */
const runPrefix = memo(() => nodeCrypto().randomBytes(4).toString("hex"));

/**
 * A new run id: a process prefix (4 random bytes, hex) and a counter in base 36; no crypto per run.
 * @example newRunId() // "run-9f1c02ab-1"
 */
export function newRunId(): string {
  return `run-${runPrefix()}-${(++runCounter).toString(36)}`;
}
