/**
 * `addMessages` on a list without an id index: up to `SCAN_MAX` messages it searches the list
 * (and keeps no index); a longer one is indexed, and the index is handed over to the result.
 * Either way a message replaces, and a `RemoveMessage` removes, the last one with its id.
 */
import { describe, expect, it } from "vitest";
import { HumanMessage, type Message } from "../chat/messages.js";
import { ValueError } from "../errors/index.js";
import { addMessages, hasMessageIndex, RemoveMessage, SCAN_MAX } from "./add-messages.js";

const m = (id: string, content: string): Message => HumanMessage({ id, content });
const shown = (list: readonly Message[]) => list.map((x) => `${x.id}:${x.content}`);

describe("addMessages without an index", () => {
  it("searches a short list: replaces and removes the last message with the id", () => {
    // A list given from outside may repeat an id; the index, too, held the last one.
    const current = [m("a", "1"), m("b", "2"), m("a", "3")];
    const replaced = addMessages(current, [m("a", "new"), m("c", "4")]);
    expect(shown(replaced)).toEqual(["a:1", "b:2", "a:new", "c:4"]);
    expect(hasMessageIndex(replaced)).toBe(false);
    const removed = addMessages(current, [RemoveMessage("a")]);
    expect(shown(removed)).toEqual(["a:1", "b:2"]);
    expect(() => addMessages(current, RemoveMessage("z"))).toThrow(
      new ValueError('RemoveMessage: no message with id "z" in the conversation'),
    );
    expect(shown(current)).toEqual(["a:1", "b:2", "a:3"]);
  });

  it("indexes a list longer than SCAN_MAX and hands the index over", () => {
    const long = Array.from({ length: SCAN_MAX + 1 }, (_, i) => m(`m${i}`, `${i}`));
    const first = addMessages(long, [m("m0", "zero"), m("x", "new")]);
    expect(hasMessageIndex(first)).toBe(true);
    expect(first.length).toBe(SCAN_MAX + 2);
    expect(shown([first[0]!, first.at(-1)!])).toEqual(["m0:zero", "x:new"]);
    const second = addMessages(first, [m("x", "again"), RemoveMessage("m1")]);
    expect(hasMessageIndex(second)).toBe(false);
    expect(second.length).toBe(SCAN_MAX + 1);
    expect(shown([second[0]!, second[1]!, second.at(-1)!])).toEqual(["m0:zero", "m2:2", "x:again"]);
  });
});
