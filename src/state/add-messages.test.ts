/**
 * `addMessagesOwned` (a fold's in-place merge) gives what `addMessages` gives, update by
 * update, and changes no list it does not own.
 */
import { describe, expect, it } from "vitest";
import type { Message } from "../chat/messages.js";
import { AIMessage, HumanMessage } from "../chat/messages.js";
import { ValueError } from "../errors/index.js";
import {
  addMessages,
  addMessagesOwned,
  type MessagesUpdate,
  RemoveMessage,
  SCAN_MAX,
  settleMessages,
} from "./add-messages.js";

const m = (id: string, content: string): Message => HumanMessage({ id, content });

/** `SCAN_MAX` messages `f0`, `f1`, … (a list longer than it is merged into without an index). */
const filler = (): Message[] => Array.from({ length: SCAN_MAX }, (_, i) => m(`f${i}`, `f ${i}`));

/** A seeded sequence of updates: appends, replacements, removals, repeats of the list itself. */
function updates(seed: number, n: number): ((list: readonly Message[]) => MessagesUpdate)[] {
  let x = seed;
  const next = () => {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31;
    return x;
  };
  const out: ((list: readonly Message[]) => MessagesUpdate)[] = [];
  for (let i = 0; i < n; i++) {
    const r = next() % 6;
    const k = next();
    if (r === 0) out.push(() => m(`m${i}`, `new ${i}`));
    else if (r === 1) out.push(() => [m(`a${i}`, "a"), AIMessage({ id: `b${i}`, content: "b" })]);
    else if (r === 2)
      out.push((list) => (list.length ? m(list[k % list.length]!.id!, `re ${i}`) : []));
    else if (r === 3)
      out.push((list) => (list.length ? RemoveMessage(list[k % list.length]!.id!) : []));
    else if (r === 4) out.push((list) => list);
    else out.push((list) => (list.length ? [RemoveMessage(list[0]!.id!), m("x", `x${i}`)] : []));
  }
  return out;
}

describe("addMessagesOwned", () => {
  it("gives addMessages' result for each update of 200 seeded sequences, in place after the first copy", () => {
    // From an indexed list (a warm position's): each update gives addMessages' result at once.
    for (let seed = 1; seed <= 200; seed++) {
      const start = addMessages([], [m("s1", "one"), m("s2", "two")]);
      const frozen = JSON.stringify(start);
      const owned = new WeakSet<object>();
      let copied: readonly Message[] = start;
      let inPlace: Message[] = start;
      let first: Message[] | null = null;
      for (const u of updates(seed, 40)) {
        // (The owned merge first: addMessages hands the index of the list it merges into over
        // to its result.)
        inPlace = addMessagesOwned(inPlace, u(inPlace), owned);
        copied = addMessages(copied, u(copied));
        first ??= inPlace;
        expect(inPlace).toEqual(copied);
      }
      // One copy, made by the first update; the caller's list is as it was.
      expect(inPlace).toBe(first);
      expect(JSON.stringify(start)).toBe(frozen);
    }
  });

  it("from a list without an index, gives addMessages' result once settled, for 200 seeded sequences", () => {
    // (A cold load's snapshot list: merged into without an index of what it held; a
    // RemoveMessage settles it on the way, settleMessages at the end.)
    for (const settleEvery of [0, 7]) {
      for (let seed = 1; seed <= 200; seed++) {
        // Longer than SCAN_MAX: a shorter list is copied as addMessages copies it (next test).
        const start = [
          ...filler(),
          m("s1", "one"),
          m("s2", "two"),
          m("s1", "dup"),
          m("s3", "three"),
        ];
        const frozen = JSON.stringify(start);
        const owned = new WeakSet<object>();
        let copied: readonly Message[] = start;
        let inPlace: Message[] = start;
        let first: Message[] | null = null;
        let n = 0;
        for (const u of updates(seed, 40)) {
          // The same update for both (made from addMessages' list; the list itself for its own).
          const update = u(copied);
          copied = addMessages(copied, update);
          inPlace = addMessagesOwned(inPlace, update === copied ? inPlace : update, owned);
          first ??= inPlace;
          if (settleEvery > 0 && ++n % settleEvery === 0) {
            settleMessages(inPlace);
            expect(inPlace).toEqual(copied);
          }
        }
        settleMessages(inPlace);
        expect(inPlace).toEqual(copied);
        expect(inPlace).toBe(first);
        expect(JSON.stringify(start)).toBe(frozen);
      }
    }
  });

  it("settles a message merged with a held message's id into that message's place", () => {
    const owned = new WeakSet<object>();
    const held = [...filler(), m("a", "1"), m("b", "2"), m("c", "3")];
    const tail = (list: readonly Message[]) => list.slice(SCAN_MAX);
    let list = addMessagesOwned(held, [m("n", "new"), m("b", "2 again")], owned);
    list = addMessagesOwned(list, [m("n", "new again"), m("o", "other")], owned);
    // Before it is settled, the merged messages are after the held ones.
    expect(tail(list).map((x) => x.content)).toEqual([
      "1",
      "2",
      "3",
      "new again",
      "2 again",
      "other",
    ]);
    settleMessages(list);
    expect(list.slice(0, SCAN_MAX)).toEqual(filler());
    expect(tail(list).map((x) => [x.id, x.content])).toEqual([
      ["a", "1"],
      ["b", "2 again"],
      ["c", "3"],
      ["n", "new again"],
      ["o", "other"],
    ]);
    expect(tail(held).map((x) => x.content)).toEqual(["1", "2", "3"]);
    // Settled once: nothing more to do, and a later merge finds "b" where it is.
    settleMessages(list);
    expect(tail(addMessagesOwned(list, m("b", "2 thrice"), owned)).map((x) => x.content)).toEqual([
      "1",
      "2 thrice",
      "3",
      "new again",
      "other",
    ]);
  });

  it("merges into a copy of a short list without an index as addMessages does, update by update", () => {
    // (addMessages searches a list of at most SCAN_MAX messages and keeps no index of it.)
    const owned = new WeakSet<object>();
    const held = [m("a", "1"), m("b", "2"), m("a", "dup")];
    let list = addMessagesOwned(held, [m("n", "new"), m("a", "1 again")], owned);
    expect(list.map((x) => [x.id, x.content])).toEqual([
      ["a", "1"],
      ["b", "2"],
      ["a", "1 again"],
      ["n", "new"],
    ]);
    list = addMessagesOwned(list, [m("b", "2 again"), m("o", "other")], owned);
    expect(list.map((x) => x.content)).toEqual(["1", "2 again", "1 again", "new", "other"]);
    settleMessages(list);
    expect(list.map((x) => x.content)).toEqual(["1", "2 again", "1 again", "new", "other"]);
    expect(held.map((x) => x.content)).toEqual(["1", "2", "dup"]);
  });

  it("throws addMessages' ValueError for an unknown RemoveMessage, owned or not", () => {
    const owned = new WeakSet<object>();
    const list = addMessagesOwned([m("a", "x")], m("b", "y"), owned);
    const message = 'RemoveMessage: no message with id "zz" in the conversation';
    expect(() => addMessagesOwned(list, RemoveMessage("zz"), owned)).toThrow(
      new ValueError(message),
    );
    expect(() => addMessagesOwned([m("a", "x")], RemoveMessage("zz"), owned)).toThrow(
      new ValueError(message),
    );
  });

  it("gives a message without an id a fresh one, as addMessages does", () => {
    const owned = new WeakSet<object>();
    const list = addMessagesOwned([], m("a", "x"), owned);
    const out = addMessagesOwned(list, { ...m("q", "no id"), id: null }, owned);
    expect(out).toBe(list);
    expect(out.map((x) => x.content)).toEqual(["x", "no id"]);
    expect(typeof out[1]!.id).toBe("string");
    expect(out[1]!.id).not.toBe("");
  });
});
