/**
 * A PostgreSQL state store for worker processes of the take-over tests: the process SIGKILLs
 * itself right after an append that stored a `run_failed` event, so that nothing after it
 * (no stream end, no `handedOverAt`, no lease given back) is written.
 */
import { PostgresStateStore } from "../postgres/index.js";

/** A store on `schema` of the test database whose process dies after storing a `run_failed`. */
export function storeDyingAfterRunFailed(schema: string): PostgresStateStore {
  const stateStore = new PostgresStateStore({
    connectionString: "postgres://postgres@127.0.0.1:5432/test",
    schema,
  });
  const dieAfter = (events: { type: string }[]) => {
    if (events.some((e) => e.type === "run_failed")) process.kill(process.pid, "SIGKILL");
  };
  const append = stateStore.append.bind(stateStore);
  stateStore.append = async (threadId, branchId, events, expectedLastSeq) => {
    const stored = await append(threadId, branchId, events, expectedLastSeq);
    dieAfter(events);
    return stored;
  };
  const appendLeased = stateStore.appendLeased.bind(stateStore);
  stateStore.appendLeased = async (threadId, branchId, events, expectedLastSeq, lease) => {
    const stored = await appendLeased(threadId, branchId, events, expectedLastSeq, lease);
    dieAfter(events);
    return stored;
  };
  return stateStore;
}
