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
} from "./add-messages.js";

const m = (id: string, content: string): Message => HumanMessage({ id, content });

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
    for (let seed = 1; seed <= 200; seed++) {
      const start = [m("s1", "one"), m("s2", "two")];
      const frozen = JSON.stringify(start);
      const owned = new WeakSet<object>();
      let copied: readonly Message[] = start;
      let inPlace: Message[] = start;
      let first: Message[] | null = null;
      for (const u of updates(seed, 40)) {
        copied = addMessages(copied, u(copied));
        inPlace = addMessagesOwned(inPlace, u(inPlace), owned);
        first ??= inPlace;
        expect(inPlace).toEqual(copied);
      }
      // One copy, made by the first update; the caller's list is as it was.
      expect(inPlace).toBe(first);
      expect(JSON.stringify(start)).toBe(frozen);
    }
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
