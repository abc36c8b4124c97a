/**
 * Setup of the `cold`, `cold-sqlite` and `cold-postgres` vitest projects (see
 * vitest.config.ts), which run the thread suites again as a new process would see them:
 *
 * - the position cache is never read (src/graph/cold-mode.ts);
 * - every call of `invoke`, `stream`, `getState`, `updateState`, `history`, `fork` and
 *   `deleteThread` runs on a new `Graph` (same definition, flow and options) over a new
 *   instance of its store on the same data (cold-graph.ts, cold-stores.ts);
 * - on `cold-sqlite` and `cold-postgres` (`NODESTEP_COLD_STORE`), a test's
 *   `new MemoryStateStore()` is a `SqliteStateStore` (a new file) or a `PostgresStateStore`
 *   (a new schema), so the same assertions hold on each store; and `describeStores` suites run
 *   on that kind only.
 */
import { afterAll, vi } from "vitest";
import { setColdMode } from "../../src/graph/cold-mode.js";
import type { StateStore } from "../../src/stores/types.js";
import { installColdGraphs } from "./cold-graph.js";
import { cleanUpColdStores, coldStoreKind, newBackingStore, reopenStore } from "./cold-stores.js";

vi.mock(import("../../src/stores/memory-state-store.js"), async (importOriginal) => {
  const actual = await importOriginal();
  const kind = process.env.NODESTEP_COLD_STORE ?? "memory";
  if (kind !== "sqlite" && kind !== "postgres") return actual;
  // `new MemoryStateStore()` gives a store of the cold kind (a constructor may return another
  // object); a test's subclass of it (a store that fails on purpose) stays a memory store.
  // Made through a global set below: this factory must not import the stores, which import
  // this module.
  class ColdBackedStore extends actual.MemoryStateStore {
    constructor(options?: { now?: () => number }) {
      super(options);
      if (new.target !== ColdBackedStore) return;
      const make = (globalThis as { __nodestepColdStore?: () => StateStore }).__nodestepColdStore;
      if (!make) throw new Error("cold-mode.ts: the cold store factory is not installed");
      // biome-ignore lint/correctness/noConstructorReturn: the stand-in is a store of another class
      return make() as unknown as ColdBackedStore;
    }
  }
  return {
    ...actual,
    MemoryStateStore: ColdBackedStore as unknown as typeof actual.MemoryStateStore,
  };
});

const kind = coldStoreKind();
const { memoryStoreView } = await vi.importActual<
  typeof import("../../src/stores/memory-state-store.js")
>("../../src/stores/memory-state-store.js");

if (kind !== "memory") {
  (globalThis as { __nodestepColdStore?: () => StateStore }).__nodestepColdStore = () =>
    newBackingStore(kind);
}
setColdMode(true);
installColdGraphs((s) => reopenStore(s, memoryStoreView));

afterAll(cleanUpColdStores);
