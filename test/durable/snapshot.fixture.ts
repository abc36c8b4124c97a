/**
 * What the cold-load and snapshot tests share: a store whose snapshots are hidden (a load then
 * folds every event: the reference a snapshot load must equal), and a one-node chat graph whose
 * node answers each turn with message `a<n>`.
 */
import { z } from "zod";
import { AIMessage } from "../../src/chat/messages.js";
import { Graph } from "../../src/graph/graph.js";
import { node, START } from "../../src/graph/node.js";
import { END } from "../../src/graph/routing.js";
import { defineState, messagesField } from "../../src/state/define-state.js";
import type { StateStore } from "../../src/stores/types.js";

/** The store with its snapshots hidden: a load folds every event. */
export function eventsOnly(store: StateStore): StateStore {
  return new Proxy(store, {
    get(target, key, receiver) {
      if (key === "loadSnapshot") return async () => null;
      if (key === "saveSnapshot") return async () => {};
      const v = Reflect.get(target, key, receiver);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

/** The chat graph's state: its messages and the turn count `n`. */
export const ChatState = defineState({ messages: messagesField(), n: z.number().default(0) });

/** A graph of one node, `answer`, that appends `AIMessage({ id: "a<n>" })` and counts the turn. */
export function chatGraph(store: StateStore): Graph<typeof ChatState> {
  const answer = node(
    (s: typeof ChatState.State) => ({
      messages: [AIMessage({ id: `a${s.n}`, content: `answer ${s.n}` })],
      n: s.n + 1,
    }),
    { name: "answer" },
  );
  return new Graph(ChatState, { name: "chat", stateStore: store }).flow(
    START.to(answer),
    answer.to(END),
  );
}
