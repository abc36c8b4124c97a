/**
 * Where a run on a thread starts (`runGraph`, `run-setup.ts`): from the branch's loaded
 * position, after undoing what must be undone (busy-thread policy `"rollback"`, or a stable
 * subgraph's child going back to where its parent knows it, `stable-rewind.ts`), with new
 * input applied, or continuing it with resume answers or a `Command`'s update and goto. The
 * run's first events (`rolled_back`, `state_updated`, `run_started`) are written here. The
 * `rolled_back` event comes first, before the input, the resume answers or the `Command` are
 * judged: a run refused after it leaves the thread rolled back (see docs/busy-threads.md).
 *
 * @module
 */
import {
  RunCancelledError,
  StateStoreError,
  UnknownBranchError,
  ValueError,
} from "../errors/index.js";
import { findNonJson, type JsonObject, jsonExact } from "../json/index.js";
import { applyRunInput } from "../state/apply-update.js";
import type { PreparedUpdate, StateDefinition } from "../state/define-state.js";
import type { StateStore } from "../stores/types.js";
import type { EngineGraph, RunPosition } from "./engine.js";
import { setWaiting } from "./joins.js";
import type { ThreadJournal } from "./journal.js";
import { checkResumeAnswers } from "./journal-events.js";
import type { CachedPosition } from "./load-position.js";
import { subgraphParentTask } from "./parent-command.js";
import { readOnlyViews, readsOnly } from "./read-only-view.js";
import { planRollback, positionAfter, type RollbackData, rollbackEventData } from "./rollback.js";
import type { Command } from "./routing.js";
import { scheduleStart } from "./schedule.js";
import { planRewind, rewindOf } from "./stable-rewind.js";
import { planStateUpdate } from "./state-update.js";
import { applyStateUpdated, type ThreadPosition } from "./thread-state.js";
import type { RunOptions } from "./types.js";

/** A run on a thread whose journal is open (its lease taken, its position loaded). */
export interface ThreadRunStart {
  /** The engine's view of the graph (name, state definition, flow). */
  readonly engine: EngineGraph;
  readonly store: StateStore;
  readonly threadId: string;
  readonly branchId: string;
  readonly runId: string;
  readonly journal: ThreadJournal;
  /** What `ThreadJournal.open` loaded. */
  readonly loaded: CachedPosition;
  /** The runs the busy-thread policy stopped (undone with `"rollback"`). */
  readonly stopped: readonly string[];
  /** The run's options (the same object the run was given: its subgraph tags are keyed by it). */
  readonly options: RunOptions;
  /** The `Command`'s update, prepared before the run asked for the thread, or `null` for none. */
  readonly commandUpdate: PreparedUpdate | null;
}

/**
 * Write the run's first events and return the position it runs from, with the run that
 * started the thread's current work (`originRunId`: this run for new input, else the one the
 * position names).
 * @param prepared - the run's new input, already checked against the state's schema and
 *   prepared (`prepareUpdate`, by `runGraph` before it asked for the thread: input the schema
 *   refuses never gets here), or `null` to continue the thread (or to apply `command`).
 * @throws ValueError for a resume key no interrupt is pending on (resume answers with new
 *   input are refused before, by `checkRunArguments`); what the graph's `checkInput` throws for new input; UnknownBranchError when
 *   continuing a branch with no history; StateStoreError for a resume answer that is not
 *   JSON; what a reducer throws for the Command's update (its schema was checked before, with the
 *   input's). Each leaves nothing of the run
 *   written but its `rolled_back` event, when it had one to write (that one stays).
 */
export async function startThreadRun(
  run: ThreadRunStart,
  prepared: PreparedUpdate | null,
  command: Command | null,
): Promise<{ pos: RunPosition; originRunId: string }> {
  const { engine, store, threadId, branchId, runId, journal, options } = run;
  const def: StateDefinition | null = engine.state;
  let tp = run.loaded.position;
  // onBusy "rollback": the runs it stopped are undone; a stable subgraph's child first goes
  // back to where its parent knows it (stable-rewind.ts). Either is written (a rolled_back
  // event) before anything else is judged: the caller asked for it, and whatever refuses the
  // run next (checkInput, a resume key, the input) judges, and names, the thread as stored.
  journal.parentTask = subgraphParentTask(options);
  // (No await without a rollback or a rewind to plan: a run's start awaits nothing it need not.)
  const rewind = rewindOf(options);
  const rollback =
    options.onBusy === "rollback"
      ? await planRollback(store, def, threadId, branchId, run.stopped)
      : rewind === undefined
        ? null
        : await planRewind(store, def, threadId, branchId, tp, rewind);
  if (rollback) tp = await writeRollback(journal, rollback);
  if (prepared !== null) {
    const state = applyRunInput(def, tp.state, prepared, false);
    const pos: RunPosition = {
      state,
      step: tp.step,
      tasks: [],
      known: new Map(),
      caches: new Map(),
      answers: {},
    };
    const scheduled = scheduleStart(engine, pos, tp.step);
    if (scheduled) await scheduled;
    // The graph's checkInput may refuse new input on a thread with history: nothing of the
    // run is written (a rollback above is, and stays), so the thread is as the check saw it.
    const check = engine.checkInput;
    if (check && tp.lastSeq > 0) {
      // Read only: the state is the thread's cached one, the input what is written next (a
      // check of nodestep's own that only reads is given them as they are).
      const view = readsOnly(check) ? null : readOnlyViews(engine.name);
      const input = prepared as Record<string, unknown>;
      const refused = check({
        graph: engine.name,
        threadId,
        branchId,
        state: view === null ? tp.state : view(tp.state),
        input: view === null ? input : view(input),
        interrupts: view === null ? tp.interrupts : view(tp.interrupts),
        next: view === null ? namesOf(tp.tasks) : view(namesOf(tp.tasks)),
        rolledBack: rollback
          ? view === null
            ? rollback.runs
            : view(rollback.runs)
          : NONE_ROLLED_BACK,
        events: () => store.read(threadId, branchId),
      });
      if (refused) await refused;
    }
    cancelledBeforeStart(options, engine.name, threadId, branchId);
    await journal.runStarted(
      tp.step,
      {
        // A new thread records the state it starts from (defaults made by functions included).
        init: tp.lastSeq === 0 ? tp.state : null,
        input: prepared as JsonObject,
        tasks: pos.tasks,
        resume: {},
        waiting: pos,
      },
      tp.state,
    );
    return { pos, originRunId: runId };
  }
  if (tp.lastSeq === 0) {
    throw new UnknownBranchError(
      `Thread "${threadId}" (branch "${branchId}") has no history to continue; start it with an input`,
      { threadId, branchId },
    );
  }
  let resume = command?.resume ?? options.resume ?? {};
  const pendingKeys = new Set(tp.interrupts.map((i) => i.key));
  for (const key of Object.keys(resume)) {
    if (!pendingKeys.has(key) && !Object.hasOwn(tp.answers, key)) {
      throw new ValueError(
        `Thread "${threadId}" has no pending interrupt with key "${key}"; pending: ${[...pendingKeys].join(", ") || "(none)"}`,
      );
    }
  }
  const bad = findNonJson(resume, "resume");
  if (bad)
    throw new StateStoreError(
      `Cannot store the resume answers: ${bad.path} is not JSON (${bad.problem})`,
      { field: bad.path, threadId },
    );
  // An answer that is itself undefined is refused before the copy below would drop it.
  checkResumeAnswers(resume, threadId, branchId);
  // The answers as a cold load of this run's event gives them (a -0 as 0, no key holding
  // undefined; a copy only then): the task reading one now and a later replay see the same.
  resume = jsonExact(resume);
  cancelledBeforeStart(options, engine.name, threadId, branchId);
  if (command && (command.update !== null || command.goto !== null)) {
    // The Command's update and goto: one state_updated event before the run continues.
    const data = await planStateUpdate(
      { name: engine.name, state: def, flow: engine.flow },
      tp,
      command.update,
      null,
      command.goto,
      true,
      run.commandUpdate,
    );
    await journal.stateUpdated(tp.step, data);
    const updated: ThreadPosition = { ...tp };
    applyStateUpdated(def, updated, tp.step, data);
    tp = updated;
  }
  const pos: RunPosition = {
    state: tp.state,
    step: tp.step,
    tasks: tp.tasks,
    known: new Map(Object.entries(tp.known)),
    caches: new Map(Object.entries(tp.caches)),
    // A new answer for a key replaces an earlier one (say, after the earlier one made the run fail).
    answers: { ...tp.answers, ...resume },
    // Continuing from a breakpoint goes past it.
    passed: tp.breakpoint ? tp.breakpoint.step : (tp.passed ?? null),
  };
  setWaiting(pos, tp);
  const originRunId = tp.originRunId ?? runId;
  await journal.runStarted(tp.step, { input: null, tasks: null, resume });
  return { pos, originRunId };
}

/**
 * Throw when the run's own signal fired before it wrote its start (while a `checkInput` or a
 * rollback's read was pending): a cancelled run writes nothing of its own (a rollback it
 * wrote stays), as one cancelled while it waited for the thread.
 * @throws RunCancelledError with the signal's reason as `cause`.
 */
function cancelledBeforeStart(
  options: RunOptions,
  graph: string,
  threadId: string,
  branchId: string,
): void {
  const signal = options.signal;
  if (signal?.aborted)
    throw new RunCancelledError(
      `The run of graph "${graph}" was cancelled before it started on thread "${threadId}" (branch "${branchId}"); nothing of it was written`,
      { graph, cause: signal.reason },
    );
}

/** `NewInputOnThread.next`: the names of a position's tasks. */
function namesOf(tasks: readonly { readonly name: string }[]): string[] {
  const names: string[] = [];
  for (const t of tasks) names.push(t.name);
  return names;
}

/** `NewInputOnThread.rolledBack` when the run undid nothing (one frozen array for every check). */
const NONE_ROLLED_BACK: readonly string[] = Object.freeze([]);

/**
 * Write the `rolled_back` event of `rollback` (before the run's first event) and return
 * the position after it. (A function of its own, not a closure in `startThreadRun`: a named
 * closure per run costs a name set on it in the build, esbuild's keepNames.)
 */
async function writeRollback(
  journal: ThreadJournal,
  rollback: RollbackData,
): Promise<ThreadPosition> {
  // At the step of the position it goes back to (as the fold reads it).
  await journal.rolledBack(rollback.position.step as number, rollbackEventData(rollback));
  return positionAfter(rollback, journal.lastSeq, journal.lastEventId);
}
