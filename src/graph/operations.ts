/**
 * What a {@link Graph}'s runs and thread calls do (run, getState, updateState, history, fork,
 * deleteThread), in one module that `graph.ts` loads on a graph's first such call: importing
 * nodestep does not load the engine (the superstep loop, the journal, the thread fold), which
 * is a good share of its modules.
 *
 * @module
 */
export { deleteGraphThread } from "./delete-thread.js";
export { runGraph } from "./run-setup.js";
export { updateThreadState } from "./state-update.js";
export { forkThread, getThreadState, threadHistory } from "./thread-ops.js";
