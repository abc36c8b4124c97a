/**
 * A fold from a snapshot's position (its messages list read back from JSON: no id index)
 * merges the tail's messages without indexing the snapshot's (addMessagesOwned) and settles
 * them at the end: a tail message with the id of a snapshot message replaces it in place, a
 * `RemoveMessage` removes one, new ones are appended — exactly what folding every event gives.
 */
import { describe, expect, it } from "vitest";
import { ChatState, chatGraph } from "../../test/durable/snapshot.fixture.js";
import { AIMessage, HumanMessage, type Message } from "../chat/messages.js";
import { RemoveMessage } from "../state/add-messages.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import { emptyPosition, foldEvents, type ThreadPosition } from "./thread-state.js";

const State = ChatState;
const chat = chatGraph;

describe("a fold from a snapshot's position", () => {
  // 5 turns: a snapshot list of 10 messages (at most SCAN_MAX: merged as addMessages merges);
  // 40 turns: 80 messages, merged without an index and settled at the end.
  it.each([5, 40])(
    "gives what folding every event gives, with tail messages that replace, remove and add (%i turns first)",
    async (turns) => {
      const store = new MemoryStateStore();
      const g = chat(store);
      for (let t = 0; t < turns; t++) {
        await g.invoke(
          { messages: [HumanMessage({ id: `h${t}`, content: `q ${t}` })] },
          {
            threadId: "t",
          },
        );
      }
      const cut = (await store.getBranch("t", "main"))!.lastSeq;
      // The tail: a new turn, a human message replaced by id, one removed, another turn.
      await g.invoke(
        { messages: [HumanMessage({ id: "h_5", content: "q 5" })] },
        { threadId: "t" },
      );
      await g.updateState("t", { messages: [HumanMessage({ id: "h1", content: "q 1, edited" })] });
      await g.updateState("t", { messages: [RemoveMessage("a2")] });
      // (A second snapshot's place: its tail replaces a message it holds, with no RemoveMessage.)
      const cut2 = (await store.getBranch("t", "main"))!.lastSeq;
      await g.updateState("t", {
        messages: [
          AIMessage({ id: "a4", content: "answer 4, edited" }),
          HumanMessage({ id: "h_6", content: "q 6" }),
        ],
      });
      await g.invoke(
        { messages: [HumanMessage({ id: "h_7", content: "q 7" })] },
        { threadId: "t" },
      );

      const events = await store.read("t", "main");
      const all = foldEvents(State, emptyPosition(State), events);
      // The snapshot: the position at `cut`, as read back from its JSON.
      const head = foldEvents(State, emptyPosition(State), events.slice(0, cut));
      const snapshot = JSON.parse(JSON.stringify(head)) as ThreadPosition;
      const viaSnapshot = foldEvents(State, snapshot, events.slice(cut));
      expect(JSON.stringify(viaSnapshot)).toBe(JSON.stringify(all));
      const head2 = foldEvents(State, emptyPosition(State), events.slice(0, cut2));
      const viaSecond = foldEvents(State, JSON.parse(JSON.stringify(head2)), events.slice(cut2));
      expect(JSON.stringify(viaSecond)).toBe(JSON.stringify(all));
      const ids = (all.state.messages as Message[]).map((m) => [m.id, m.content]);
      // The first turns as they were, but h1 edited and a2 removed; a4 edited in place.
      const first: string[][] = [];
      for (let t = 0; t < turns; t++) {
        first.push([`h${t}`, t === 1 ? "q 1, edited" : `q ${t}`]);
        if (t !== 2) first.push([`a${t}`, t === 4 ? "answer 4, edited" : `answer ${t}`]);
      }
      expect(ids).toEqual([
        ...first,
        ["h_5", "q 5"],
        [`a${turns}`, `answer ${turns}`],
        ["h_6", "q 6"],
        ["h_7", "q 7"],
        [`a${turns + 1}`, `answer ${turns + 1}`],
      ]);
      if (turns === 5) {
        expect(ids).toEqual([
          ["h0", "q 0"],
          ["a0", "answer 0"],
          ["h1", "q 1, edited"],
          ["a1", "answer 1"],
          ["h2", "q 2"],
          ["h3", "q 3"],
          ["a3", "answer 3"],
          ["h4", "q 4"],
          ["a4", "answer 4, edited"],
          ["h_5", "q 5"],
          ["a5", "answer 5"],
          ["h_6", "q 6"],
          ["h_7", "q 7"],
          ["a6", "answer 6"],
        ]);
      }
      // The snapshot's list is left as it was.
      expect((snapshot.state.messages as Message[]).map((m) => m.id)).toEqual(
        (head.state.messages as Message[]).map((m) => m.id),
      );
    },
  );
});
