/**
 * The data of a streamed run's `end` event, one shape for a run on the server and a run on a
 * worker: the thread as the store has it after the run, and the branch's usage.
 *
 * @module
 */
import type { Graph } from "../graph/graph.js";
import { pickOutput } from "../graph/io-schema.js";
import type { ThreadSnapshot } from "../graph/thread-ops.js";
import type { StateDefinition } from "../state/define-state.js";
import type { UsageReport } from "./usage-report.js";

/**
 * A run's `end` data: the thread's `threadId` and `branchId`, its `status` after the run
 * (`"interrupted"` when it waits on an interrupt), its pending `interrupts`, the id of its last
 * stored event (`lastEventId`), the state's output fields (`state`: the graph's
 * `outputFields`, else all) and the branch's token totals (`threadUsage`, a `UsageReport`;
 * its `cost` is `null` where no prices are known, as on a worker).
 */
export interface RunEndData
  extends Pick<
    ThreadSnapshot<Record<string, unknown>>,
    "status" | "interrupts" | "lastEventId" | "state"
  > {
  threadId: string;
  branchId: string;
  threadUsage: UsageReport;
}

/** Where the branch's usage comes from (the server's usage answers, or a ledger on a worker). */
export interface ThreadUsageReader {
  /** The usage of a thread's branch. */
  thread(threadId: string, branchId: string): Promise<UsageReport>;
}

/**
 * The `end` data of a run of `graph` on `threadId`'s branch `branchId`, read from the store
 * (the graph's `stateStore`) and from `usage`.
 *
 * @throws what `graph.getState` and `usage.thread` throw (an unknown branch: UnknownBranchError).
 * @example
 * ```ts
 * const ledger = new UsageLedger(store);
 * const end = await runEndData(graph, "t1", "main", {
 *   thread: async (t, b) => usageReport(await ledger.thread(t, b), null),
 * });
 * end.threadUsage.usage.totalTokens; // 1234
 * ```
 */
export async function runEndData(
  graph: Graph<StateDefinition | null>,
  threadId: string,
  branchId: string,
  usage: ThreadUsageReader,
): Promise<RunEndData> {
  const after = await graph.getState(threadId, { branchId });
  return {
    threadId,
    branchId,
    status: after.status,
    interrupts: after.interrupts,
    lastEventId: after.lastEventId,
    // The run's result: the graph's output fields (all of them without an output schema).
    state: pickOutput(after.state, graph.outputFields),
    threadUsage: await usage.thread(threadId, branchId),
  };
}
