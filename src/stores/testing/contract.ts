/**
 * The contract suite every `StateStore` must pass, written for vitest. The memory, SQLite and
 * PostgreSQL stores run it; a user-written store runs it the same way:
 *
 * ```ts
 * // my-store.test.ts
 * import { describeStateStoreContract } from "nodestep/testing";
 * describeStateStoreContract("MyStore", async () => new MyStore(), async (store) => { ... });
 * ```
 *
 * @module
 */
import { afterEach, beforeEach, describe } from "vitest";
import type { StateStore } from "../types.js";
import { describeAppendContract } from "./contract-append.js";
import { describeBranchesContract } from "./contract-branches.js";
import { describeCloseContract } from "./contract-close.js";
import { describeDeleteContract } from "./contract-delete.js";
import { describeJsonContract } from "./contract-json.js";
import { describeLeasesContract } from "./contract-leases.js";
import { describeListContract } from "./contract-list.js";
import { describeSnapshotsContract } from "./contract-snapshots.js";
import { describeListBranchesContract } from "./list-branches-contract.js";

/** Extra abilities of a store under test. */
export interface StateStoreContractOptions {
  /**
   * Open a second store on the same storage as `store` (another connection or pool), to check
   * that concurrency holds across connections and processes. Leave out for a store whose data
   * lives in one object (memory). The suite closes the second store.
   */
  openPeer?: (store: StateStore) => Promise<StateStore>;
}

/**
 * Register the `StateStore` contract tests (vitest `describe`/`it`) for one store.
 *
 * Each test gets a fresh, empty store from `makeStore`; after the test the suite closes it and
 * calls `cleanup` (to delete a file or drop a schema). Lease tests sleep for about 1.9 s in all.
 *
 * @param name - shown in the test names.
 * @param makeStore - a new empty store.
 * @param cleanup - called after each test with the (closed) store.
 * @param options - see {@link StateStoreContractOptions}.
 * @example
 * ```ts
 * describeStateStoreContract("MemoryStateStore", async () => new MemoryStateStore());
 * ```
 */
export function describeStateStoreContract(
  name: string,
  makeStore: () => Promise<StateStore>,
  cleanup?: (store: StateStore) => Promise<void>,
  options: StateStoreContractOptions = {},
): void {
  describe(`${name} (StateStore contract)`, () => {
    let store: StateStore;
    const peers: StateStore[] = [];

    beforeEach(async () => {
      store = await makeStore();
    });

    afterEach(async () => {
      for (const p of peers.splice(0)) await p.close();
      await store.close();
      await cleanup?.(store);
    });

    async function peer(): Promise<StateStore | null> {
      if (!options.openPeer) return null;
      const p = await options.openPeer(store);
      peers.push(p);
      return p;
    }

    const ctx = { store: () => store, peer };
    describeAppendContract(ctx);
    describeBranchesContract(ctx);
    describeSnapshotsContract(ctx);
    describeLeasesContract(ctx);
    describeJsonContract(ctx);
    describeListContract(ctx);
    describeDeleteContract(ctx);
    describeListBranchesContract(() => store);
    describeCloseContract(ctx);
  });
}
