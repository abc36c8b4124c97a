/**
 * `nodestep threads` (and `threads delete`), `nodestep history` and `nodestep fork`: a store's
 * threads, a branch's events, and new branches.
 *
 * @module
 */
import type { Command, Option } from "commander";
import { positiveInt } from "./args.js";
import { shellQuote } from "./format.js";
import { historyHint, historyLines } from "./history-format.js";
import type { LoadedGraph } from "./load.js";
import { maskPassword, RunFailed, UsageError } from "./load.js";

interface StoreOpts {
  store?: string;
}

/** What the thread commands need from the CLI around them. */
export interface ThreadCommandsHost {
  out: (line?: string) => void;
  /** Open the store of `o` (`--store`, else `$NODESTEP_STORE`, else the default), call `fn`, then close it. */
  withStore: <T>(o: StoreOpts, fn: (store: LoadedGraph["store"]) => Promise<T>) => Promise<T>;
  /** The store spec of `o`, as `withStore` opens it. */
  storeSpec: (o: StoreOpts) => string;
  storeOption: () => Option;
}

/** Add `threads`, `threads delete`, `history` and `fork` to the program. */
export function addThreadCommands(program: Command, host: ThreadCommandsHost): void {
  const { out, withStore, storeSpec, storeOption } = host;
  const threads = program
    .command("threads")
    .description("list the threads of a store, most recent first (delete one with: threads delete)")
    .addOption(storeOption())
    .option("--limit <n>", "at most this many threads", positiveInt("--limit", 1))
    .option("--offset <n>", "skip this many threads first", positiveInt("--offset", 0))
    .option("--json", "print JSON")
    .action(async (o: StoreOpts & { json?: boolean; limit?: number; offset?: number }) => {
      await withStore(o, async (store) => {
        const threads = await store.listThreads({
          ...(o.limit === undefined ? {} : { limit: o.limit }),
          ...(o.offset === undefined ? {} : { offset: o.offset }),
        });
        if (o.json) return out(JSON.stringify(threads));
        if (threads.length === 0) return out(`no threads in ${storeLabelOf(storeSpec(o))}`);
        for (const t of threads) {
          out(
            `${t.threadId}  ${new Date(t.updatedAt).toISOString()}  branches: ${t.branches.join(", ")}`,
          );
        }
      });
    });

  threads
    .command("delete")
    .description(
      "delete a thread: its branches, events, snapshots and leases (a running thread is refused)",
    )
    .argument("<thread>", "the thread")
    .option("--children", "also delete its subgraphs' and sub-agents' threads (<thread>:...)")
    .addOption(storeOption())
    .option("--json", "print JSON")
    .action(async (threadId: string, _local: unknown, cmd: Command) => {
      // `threads` has the same options: commander gives them to whichever comes first.
      const o = cmd.optsWithGlobals<StoreOpts & { children?: boolean; json?: boolean }>();
      await withStore(o, async (store) => {
        const deleted = await store.deleteThread(threadId, { children: !!o.children });
        // With --json the answer is printed either way; none deleted is still exit 1.
        if (o.json) out(JSON.stringify({ deleted }));
        if (deleted.length === 0)
          throw new RunFailed(`no thread "${threadId}" in ${storeLabelOf(storeSpec(o))}`);
        if (!o.json) out(`deleted ${deleted.join(", ")}`);
      });
    });

  program
    .command("history")
    .description("list the events of a thread's branch, oldest first")
    .argument("<thread>", "the thread")
    .option("-b, --branch <id>", "branch of the thread", "main")
    .addOption(storeOption())
    .option("--json", "print JSON")
    .action(async (threadId: string, o: StoreOpts & { branch: string; json?: boolean }) => {
      await withStore(o, async (store) => {
        const events = await store.read(threadId, o.branch);
        if (events.length === 0)
          throw new RunFailed(`no thread "${threadId}" in ${storeLabelOf(storeSpec(o))}`);
        if (o.json) return out(JSON.stringify(events));
        for (const line of historyLines(events, {
          storeFlag: storeFlagOf(o.store),
          branchId: o.branch,
        }))
          out(line);
      });
    });

  program
    .command("fork")
    .description("start a new branch of a thread after one of its events")
    .argument("<thread>", "the thread")
    .requiredOption("-e, --event <id>", "the event the branch starts after (see nodestep history)")
    .option("--new-branch <id>", "id of the new branch (default: generated)")
    .addOption(storeOption())
    .option("--json", "print JSON")
    .action(
      async (
        threadId: string,
        o: StoreOpts & { event: string; newBranch?: string; json?: boolean },
      ) => {
        await withStore(o, async (store) => {
          if (o.newBranch !== undefined && (await store.getBranch(threadId, o.newBranch))) {
            throw new UsageError(`thread "${threadId}" already has a branch "${o.newBranch}"`);
          }
          const branch = await store.createBranch(threadId, o.event, o.newBranch);
          if (o.json) return out(JSON.stringify(branch));
          out(`forked thread ${threadId} after ${o.event}: branch ${branch.branchId}`);
          // A branch that is paused (or failed) takes its answer (or a retry) first, as
          // `nodestep history -b <branch>` says; new input there may be refused.
          const hint = historyHint(await store.read(threadId, branch.branchId), {
            storeFlag: storeFlagOf(o.store),
            branchId: branch.branchId,
          });
          out(
            hint ??
              `run on it: nodestep run <module>#<export> --thread ${shellQuote(threadId)} --branch ${shellQuote(branch.branchId)}${storeFlagOf(o.store)} --message "…"`,
          );
        });
      },
    );
}

/** ` --store S` when the store was given (a password masked), else `""`. */
function storeFlagOf(store: string | undefined): string {
  return store === undefined ? "" : ` --store ${shellQuote(maskPassword(store))}`;
}

function storeLabelOf(spec: string): string {
  return maskPassword(spec);
}
