/**
 * The consistent-history rule of `modelNode`: every tool call of an `AIMessage` is answered by
 * a tool message right after it, and every tool message answers a call of the `AIMessage`
 * before it.
 *
 * @module
 */
import { type Message, ToolMessage } from "../chat/messages.js";
import { ChatHistoryError, PendingToolCallsError } from "../errors/index.js";
import type { NewInputOnThread } from "../graph/graph-options.js";
import { markReadsOnly } from "../graph/read-only-view.js";
import type { StoredEvent } from "../stores/types.js";

/** The text sent for a tool call that has no result, when the history is repaired. */
export const NOT_EXECUTED = "Tool call was not executed.";

/**
 * Find the first place where `messages` breaks the rule.
 * @returns the index of the message at fault and what is wrong, or `null` when the history is consistent.
 */
export function findHistoryProblem(
  messages: readonly Message[],
): { index: number; problem: string } | null {
  // One pass, no allocation per message: after an AIMessage with n tool calls, the following
  // tool messages must each answer one of its calls, once, and all n must be answered.
  let i = 0;
  while (i < messages.length) {
    const m = messages[i]!;
    if (m.type === "tool") {
      const id = m.toolCallId;
      return {
        index: i,
        problem: `the tool result at index ${i} (call ${id === null ? "without an id" : `"${id}"`}) answers no call of the AIMessage before it`,
      };
    }
    i++;
    if (m.type !== "ai" || m.toolCalls.length === 0) continue;
    const calls = m.toolCalls;
    const at = i - 1;
    let answered = 0;
    while (i < messages.length && messages[i]!.type === "tool") {
      const id = (messages[i] as { toolCallId: string | null }).toolCallId;
      let k = -1;
      for (let c = 0; c < calls.length; c++) if (calls[c]!.id === id) k = c;
      let dup = false;
      for (let j = at + 1; j < i && !dup; j++)
        dup = (messages[j] as { toolCallId: string | null }).toolCallId === id;
      if (k < 0 || dup) {
        return {
          index: i,
          problem: `the tool result at index ${i} (call ${id === null ? "without an id" : `"${id}"`}) answers no call of the AIMessage before it`,
        };
      }
      answered++;
      i++;
    }
    if (answered < calls.length) {
      const open = {
        index: at,
        ids: new Set(calls.map((c) => c.id)),
        order: calls.map((c) => c.id),
      };
      for (let j = at + 1; j < i; j++)
        open.ids.delete((messages[j] as { toolCallId: string }).toolCallId);
      return missing(open, messages, i);
    }
  }
  return null;
}

function missing(
  open: { index: number; ids: Set<string>; order: string[] },
  messages: readonly Message[],
  at: number,
): { index: number; problem: string } {
  const id = open.order.find((x) => open.ids.has(x))!;
  const next = messages[at];
  const after =
    next === undefined
      ? "the history ends there"
      : `the message at index ${at} is a ${next.type} message`;
  return {
    index: open.index,
    problem: `tool call "${id}" of the AIMessage at index ${open.index} has no result right after it (${after})`,
  };
}

/**
 * Raise when the history breaks the rule.
 * @throws ChatHistoryError naming the index and the call id, with `node` and `index` set.
 */
export function checkHistory(messages: readonly Message[], node: string, graph: string): void {
  const found = findHistoryProblem(messages);
  if (found === null) return;
  throw new ChatHistoryError(
    `Node "${node}" of graph "${graph}" cannot call the model: ${found.problem}. Every tool call must be answered by a tool message right after it. Continue a stopped tool turn with invoke(null, { threadId }), fork the thread, or set repairHistory: true`,
    { node, index: found.index },
  );
}

/**
 * A repaired copy of a history (the input is not changed): tool results that answer no call
 * of the `AIMessage` before them are dropped, and calls without a result get a tool message
 * `"Tool call was not executed."`, placed after the results the call's block has.
 */
export function repairHistory(messages: readonly Message[]): Message[] {
  if (findHistoryProblem(messages) === null) return messages.slice();
  const out: Message[] = [];
  let open: { ids: Set<string>; calls: { id: string; name: string }[] } | null = null;
  const close = () => {
    if (open === null) return;
    for (const c of open.calls) {
      if (open.ids.has(c.id))
        out.push(ToolMessage({ content: NOT_EXECUTED, toolCallId: c.id, name: c.name }));
    }
    open = null;
  };
  for (const m of messages) {
    if (m.type === "tool") {
      const cur = open as { ids: Set<string> } | null;
      if (cur !== null && m.toolCallId !== null && cur.ids.has(m.toolCallId)) {
        cur.ids.delete(m.toolCallId);
        out.push(m);
      }
      continue;
    }
    close();
    out.push(m);
    if (m.type === "ai" && m.toolCalls.length > 0) {
      open = {
        ids: new Set(m.toolCalls.map((c) => c.id)),
        calls: m.toolCalls.map((c) => ({ id: c.id, name: c.name })),
      };
    }
  }
  close();
  return out;
}

/**
 * The `checkInput` of `buildReactAgent`: refuse new input on a thread whose `messages` end in
 * an `AIMessage` with tool calls that have no results (followed only by the results it has),
 * as a pending approval in the tool step or a stopped tool turn leaves it. The input would
 * follow the unanswered calls and the next model call would fail; nothing of the run is
 * written (a rollback the run did first stays, and the message says so: the thread is judged,
 * and the way on given, as rolled back; see `NewInputOnThread.rolledBack`).
 * Set it on your own graph of `modelNode` and `toolRunner` to get the same refusal (leave it
 * out where the model node has `repairHistory: true`: new input is fine there).
 * Returns nothing when the input may go on; when it refuses, a promise (it reads the branch's
 * events, `run.events()`, to name the event to fork at) that rejects.
 * @throws PendingToolCallsError (as that rejection) naming the thread, the calls, the pending
 *   interrupts and the ways on: answer them (`resume`), continue (`invoke(null)`), or fork the
 *   thread at the event it names (`forkAt`).
 * @example
 * ```ts
 * const graph = new Graph(AgentState, { stateStore, checkInput: refuseInputAfterOpenCalls });
 * ```
 */
export function refuseInputAfterOpenCalls(run: NewInputOnThread): void | Promise<void> {
  if (!Array.isArray(run.state.messages)) return;
  const messages = run.state.messages as readonly Message[];
  let at = messages.length - 1;
  while (at >= 0 && messages[at]!.type === "tool") at--;
  const ai = messages[at];
  if (ai === undefined || ai.type !== "ai" || ai.toolCalls.length === 0) return;
  const answered = new Set<string | null>();
  for (let j = at + 1; j < messages.length; j++)
    answered.add((messages[j] as { toolCallId: string | null }).toolCallId);
  const callIds = ai.toolCalls.map((c) => c.id).filter((id) => !answered.has(id));
  if (callIds.length === 0) return;
  const keys = run.interrupts.map((i) => i.key);
  const { threadId, branchId } = run;
  const where = `threadId: ${JSON.stringify(threadId)}${branchId === "main" ? "" : `, branchId: ${JSON.stringify(branchId)}`}`;
  const quoted = (xs: readonly string[]) => xs.map((x) => JSON.stringify(x)).join(", ");
  const calls = `tool call${callIds.length === 1 ? "" : "s"} ${quoted(callIds)}`;
  const waits =
    keys.length === 0
      ? ""
      : ` and it waits on interrupt${keys.length === 1 ? "" : "s"} ${quoted(keys)}`;
  // With no interrupt to answer, invoke(null) continues the tool step only when something
  // runs next (calls written by updateState or a Command may leave nothing to run).
  const on =
    keys.length === 0
      ? run.next.length === 0
        ? `Nothing runs next on the thread to answer ${callIds.length === 1 ? "it" : "them"} (invoke(null) would end at once): add a ToolMessage for ${callIds.length === 1 ? "it" : "each"} with updateState`
        : `Continue the tool step with invoke(null, { ${where} })`
      : `Answer with invoke(null, { ${where}, resume: { ${keys.map((k) => `${JSON.stringify(k)}: …`).join(", ")} } })`;
  const undone = run.rolledBack;
  const one = undone.length === 1;
  const written =
    undone.length === 0
      ? "Nothing was written"
      : `${one ? "Run" : "Runs"} ${quoted(undone)} ${one ? "was" : "were"} rolled back first (${one ? "it stays undone; its" : "they stay undone; their"} tools may already have run, and answering runs them again); the input was not written`;
  // The event to fork at: the one before the event that wrote the model's request.
  return run.events().then((events) => {
    const ids = new Set(callIds);
    // Requests with these ids earlier in the state (a model may give an id again in a later
    // turn): the pending one is the request after them.
    let earlier = 0;
    for (let j = 0; j < at; j++) if (asking(messages[j], ids)) earlier++;
    const forkAt = eventBeforeCalls(events, ids, earlier);
    const fork =
      forkAt === null
        ? "fork the thread at the event before the model's request"
        : `fork the thread at event ${JSON.stringify(forkAt)} (before the model's request)`;
    throw new PendingToolCallsError(
      `Thread "${threadId}"${branchId === "main" ? "" : ` (branch "${branchId}")`} of graph "${run.graph}" cannot take new input: ${calls} of the AIMessage at index ${at} ${callIds.length === 1 ? "has" : "have"} no result${waits}. ${on}, or ${fork} and send the input on the branch. ${written}`,
      { threadId, branchId, index: at, callIds, interruptKeys: keys, forkAt },
    );
  });
}

/**
 * The id of the event before the one that wrote the pending `AIMessage` asking for one of
 * `ids` (a task's or a step's update, a state update, a run's input; not a `rolled_back`
 * event, which holds a copy of the state it goes back to), or `null` when there is none (or
 * the request came with the thread's first event). A model may give a call id again in a
 * later turn (one that numbers its calls per turn): the pending request is the one written
 * after the `earlier` requests with those ids the state holds before it (an update that
 * writes a request again, edited, comes after the one it edits), and the events a
 * `rolled_back` event undid do not count.
 */
function eventBeforeCalls(
  events: readonly StoredEvent[],
  ids: ReadonlySet<string>,
  earlier: number,
): string | null {
  // The events that wrote requests (index, how many), in order.
  const asked: [number, number][] = [];
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    if (e.type === "rolled_back") {
      // The undone events are those after the last one it kept (all of them for none, a
      // toEventId null; an event without the field undoes nothing known).
      const to = (e.data as { toEventId?: unknown } | null)?.toEventId;
      if (to !== null && typeof to !== "string") continue;
      const kept = to === null ? -1 : events.findIndex((x) => x.id === to);
      while (asked.length > 0 && asked[asked.length - 1]![0] > kept) asked.pop();
      continue;
    }
    const n = requests(e.data, ids, 0);
    if (n > 0) asked.push([i, n]);
  }
  let seen = 0;
  for (const [i, n] of asked) {
    seen += n;
    if (seen > earlier) return i === 0 ? null : events[i - 1]!.id;
  }
  return null;
}

/** Whether `m` is an AI message with a tool call in `ids`. */
function asking(m: unknown, ids: ReadonlySet<string>): boolean {
  const o = m as { type?: unknown; toolCalls?: unknown } | null;
  return (
    o !== null &&
    typeof o === "object" &&
    o.type === "ai" &&
    Array.isArray(o.toolCalls) &&
    o.toolCalls.some((c) => ids.has((c as { id?: unknown } | null)?.id as string))
  );
}

/** How many AI messages with a tool call in `ids` `value` holds (at most 8 levels down). */
function requests(value: unknown, ids: ReadonlySet<string>, depth: number): number {
  if (depth > 8 || value === null || typeof value !== "object") return 0;
  if (asking(value, ids)) return 1;
  let n = 0;
  for (const v of Array.isArray(value) ? value : Object.values(value))
    n += requests(v, ids, depth + 1);
  return n;
}

// It only reads the run it is given (its error holds copies of what it names): given the
// thread's state itself, without read-only views (graph/read-only-view.ts).
markReadsOnly(refuseInputAfterOpenCalls);
