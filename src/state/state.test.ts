import { describe, expect, it } from "vitest";
import { z } from "zod";
import { expectError } from "../../test/helpers.js";
import { AIMessage, HumanMessage, SystemMessage } from "../chat/messages.js";
import { StateStoreError, StateUpdateError, ValueError } from "../errors/index.js";
import { addMessages, RemoveMessage } from "./add-messages.js";
import {
  applyUpdate,
  defineState,
  initialState,
  messagesField,
  preparePayload,
  prepareUpdate,
  reducer,
} from "./define-state.js";
import { Replace } from "./replace.js";

const State = defineState({
  messages: messagesField(),
  count: reducer(z.number().default(0), (a: number, b: number) => a + b),
  topic: z.string().nullable().default(null),
  notes: z.array(z.string()).optional(),
});

describe("defineState", async () => {
  it("starts from each field's default and leaves fields without one absent", async () => {
    expect(initialState(State)).toEqual({ messages: [], count: 0, topic: null });
  });

  it("refuses a field that is neither a zod schema nor a reducer", async () => {
    await expectError(
      () => defineState({ x: 42 as never }),
      TypeError,
      'defineState: field "x" must be a zod schema or reducer(schema, fn)',
    );
  });

  it('refuses a field named "__proto__" (a computed key: a literal one sets the shape\'s prototype)', async () => {
    const message =
      'defineState: a field cannot be named "__proto__" (a state object would take its value as its prototype)';
    await expectError(
      () => defineState({ ["__proto__"]: z.number().default(1) }),
      TypeError,
      message,
    );
    await expectError(() => State.extend({ ["__proto__"]: z.number() }), TypeError, message);
  });

  it("gives each state its own copy of a default list or object", async () => {
    const Items = defineState({
      items: z.array(z.object({ done: z.boolean() })).default([{ done: false }]),
    });
    const first = initialState(Items) as { items: { done: boolean }[] };
    first.items[0]!.done = true;
    first.items.push({ done: true });
    expect(initialState(Items)).toEqual({ items: [{ done: false }] });
    // A field absent from a state starts from its own copy too when a reducer first merges into it.
    const Log = defineState({
      log: reducer(z.array(z.string()).default(["start"]), (a: string[], b: string[]) => {
        a.push(...b);
        return a;
      }),
    });
    applyUpdate(Log, {}, { log: ["x"] }, "n");
    expect(initialState(Log)).toEqual({ log: ["start"] });
  });

  it("extends a definition with more fields", async () => {
    const More = State.extend({ extra: z.boolean().default(true) });
    expect(initialState(More)).toEqual({ messages: [], count: 0, topic: null, extra: true });
  });
});

describe("updates", async () => {
  const apply = (state: Record<string, unknown>, update: unknown, node = "n") =>
    applyUpdate(State, state, prepareUpdate(State, update, node), node);

  it("merges reducer fields and replaces plain fields", async () => {
    const s = apply(apply(initialState(State), { count: 2, topic: "a" }), { count: 3, topic: "b" });
    expect(s.count).toBe(5);
    expect(s.topic).toBe("b");
  });

  it("names the node and the field of an unknown field", async () => {
    const err = (() => {
      try {
        prepareUpdate(State, { cuont: 1 }, "think");
      } catch (e) {
        return e as StateUpdateError;
      }
    })()!;
    expect(err).toBeInstanceOf(StateUpdateError);
    expect(err.message).toBe(
      'Node "think" wrote unknown state field "cuont"; declared fields: messages, count, topic, notes',
    );
    expect(err.node).toBe("think");
    expect(err.field).toBe("cuont");
  });

  it("names the node and the field of a wrong type", async () => {
    await expectError(
      () => prepareUpdate(State, { topic: 5 }, "think"),
      StateUpdateError,
      'Invalid value for state field "topic" written by node "think": Invalid input: expected string, received number',
    );
    expect(() => prepareUpdate(State, { count: "1" }, "think")).toThrow(StateUpdateError);
  });

  it("refuses an update that is not a plain object", async () => {
    expect(() => prepareUpdate(State, [1], "a")).toThrow(
      'Node "a" returned an array; an update must be a plain object of state fields',
    );
  });

  it("writes Replace past the reducer, and refuses it in the input", async () => {
    const s = apply({ ...initialState(State), count: 10 }, { count: Replace(1) });
    expect(s.count).toBe(1);
    await expectError(
      () => prepareUpdate(State, { count: Replace(1) }, "__input__", false),
      StateUpdateError,
      'Replace is not allowed in the run input (field "count")',
    );
  });

  it("refuses a value that does not survive JSON with StateStoreError naming the path", async () => {
    const Plain = null;
    const err = (() => {
      try {
        prepareUpdate(Plain, { data: { when: new Date(0) } }, "a");
      } catch (e) {
        return e as StateStoreError;
      }
    })()!;
    expect(err).toBeInstanceOf(StateStoreError);
    expect(err.field).toBe("data.when");
    expect(err.message).toBe(
      'Cannot store the update of node "a": data.when is not JSON (a Date instance is not plain JSON data)',
    );
    expect(() => prepareUpdate(Plain, { x: [undefined] }, "a")).toThrow(
      "x[0] is not JSON (undefined is not JSON (use null))",
    );
    expect(() => prepareUpdate(Plain, { x: Number.NaN }, "a")).toThrow(
      "x is not JSON (NaN is not a finite number)",
    );
  });

  it("keeps the last write on a plain-object state", async () => {
    const s = applyUpdate(null, { a: 1 }, prepareUpdate(null, { a: 2, b: "x" }, "n"), "n");
    expect(s).toEqual({ a: 2, b: "x" });
  });

  it("takes a reducer field's first update as its value when it has no default", async () => {
    const seen: unknown[] = [];
    const S = defineState({
      text: reducer(z.string(), (a: string, b: string) => {
        seen.push(a);
        return a + b;
      }),
      list: reducer(z.array(z.number()), (a: number[], b: number[]) => [...a, ...b]),
    });
    expect(initialState(S)).toEqual({});
    const one = applyUpdate(S, {}, prepareUpdate(S, { text: "x", list: [1] }, "n"), "n");
    expect(one).toEqual({ text: "x", list: [1] });
    expect(seen).toEqual([]);
    const two = applyUpdate(S, one, prepareUpdate(S, { text: "y", list: [2] }, "n"), "n");
    expect(two).toEqual({ text: "xy", list: [1, 2] });
    expect(seen).toEqual(["x"]);
  });

  it("gives a reducer undefined as the current value only when its schema allows undefined", async () => {
    const seen: unknown[] = [];
    const S = defineState({
      tally: reducer(z.number().optional(), (a: number | undefined, b: number | undefined) => {
        seen.push(a);
        return (a ?? 100) + (b ?? 0);
      }),
    });
    const s = applyUpdate(S, {}, prepareUpdate(S, { tally: 1 }, "n"), "n");
    expect(s).toEqual({ tally: 101 });
    expect(seen).toEqual([undefined]);
  });

  it("prepares messages as the event log gives them back: no responseMetadata that is undefined or {}", async () => {
    const ai = AIMessage({ id: "a", content: "x" });
    const update = {
      messages: [
        { ...ai, responseMetadata: undefined },
        { ...ai, id: "b", responseMetadata: {} },
        { ...ai, id: "c", responseMetadata: { model: "m" } },
      ],
    };
    const prepared = prepareUpdate(State, update, "n").messages as object[];
    expect(prepared.map((m) => Object.keys(m).at(-1))).toEqual([
      "usage",
      "usage",
      "responseMetadata",
    ]);
    expect(JSON.stringify(prepared)).toBe(
      JSON.stringify([
        ai,
        { ...ai, id: "b" },
        { ...ai, id: "c", responseMetadata: { model: "m" } },
      ]),
    );
    // One message, not in a list, alike.
    const one = prepareUpdate(State, { messages: { ...ai, responseMetadata: {} } }, "n");
    expect(JSON.stringify(one.messages)).toBe(JSON.stringify(ai));
  });

  it("wraps a failing reducer in StateUpdateError with the cause", async () => {
    const s = initialState(State);
    expect(() => apply(s, { messages: [RemoveMessage("nope")] })).toThrow(
      'Reducer of state field "messages" failed on the update of node "n": RemoveMessage: no message with id "nope" in the conversation',
    );
  });
});

describe("Send payloads", async () => {
  it("lays fields over the state without reducers and refuses Replace, RemoveMessage and unknown fields", async () => {
    expect(preparePayload(State, { count: 7 }, "w")).toEqual({ count: 7 });
    await expectError(
      () => preparePayload(State, { count: Replace(1) }, "w"),
      StateUpdateError,
      'Send payload for node "w" has a Replace in field "count"; a payload sets values as they are, without reducers',
    );
    expect(() => preparePayload(State, { messages: [RemoveMessage("m1")] }, "w")).toThrow(
      StateUpdateError,
    );
    expect(() => preparePayload(State, { other: 1 }, "w")).toThrow(
      'Send payload for node "w" has unknown state field "other"; declared fields: messages, count, topic, notes',
    );
    await expectError(
      () => preparePayload(null, { when: new Date() }, "w"),
      StateStoreError,
      'Cannot store the Send payload for node "w": when is not JSON (a Date instance is not plain JSON data)',
    );
    const e = await expectError(
      () => preparePayload(State, { count: "7" }, "w"),
      StateUpdateError,
      'Invalid value for state field "count" written by the Send payload for node "w": Invalid input: expected number, received string',
    );
    expect([e.node, e.field]).toEqual(["w", "count"]);
    expect(preparePayload(null, { anything: 1 }, "w")).toEqual({ anything: 1 });
  });
});

describe("addMessages", async () => {
  it("appends, gives ids to messages without one, and keeps the inputs unchanged", async () => {
    const current = [HumanMessage({ content: "a", id: "1" })];
    const out = addMessages(current, AIMessage({ content: "b" }));
    expect(out.map((m) => m.content)).toEqual(["a", "b"]);
    expect(typeof out[1]!.id).toBe("string");
    expect(out[1]!.id).not.toBe("");
    expect(current).toHaveLength(1);
  });

  it("replaces a message whose id is present, where it stands", async () => {
    const current = [HumanMessage({ content: "a", id: "1" }), AIMessage({ content: "b", id: "2" })];
    const out = addMessages(current, [
      HumanMessage({ content: "A", id: "1" }),
      SystemMessage({ content: "c", id: "3" }),
    ]);
    expect(out.map((m) => [m.id, m.content])).toEqual([
      ["1", "A"],
      ["2", "b"],
      ["3", "c"],
    ]);
  });

  it("removes by id and raises ValueError for an unknown id", async () => {
    const current = [HumanMessage({ content: "a", id: "1" }), AIMessage({ content: "b", id: "2" })];
    expect(addMessages(current, RemoveMessage("1")).map((m) => m.id)).toEqual(["2"]);
    expect(() => addMessages(current, RemoveMessage("9"))).toThrow(ValueError);
  });

  it("gives ids when the update is prepared, so that folding the stored update again gives the same ids", async () => {
    const p = prepareUpdate(
      State,
      { messages: [HumanMessage({ content: "hi" })] },
      "__input__",
      false,
    );
    const a = applyUpdate(State, initialState(State), p, "x");
    const b = applyUpdate(State, initialState(State), p, "x");
    expect((a.messages as { id: string }[])[0]!.id).toBe((b.messages as { id: string }[])[0]!.id);
  });

  it("validates messages and fills their defaults", async () => {
    const p = prepareUpdate(State, { messages: { type: "human", content: "hi" } }, "n") as {
      messages: { id: string };
    };
    expect(p.messages).toEqual({ type: "human", content: "hi", id: p.messages.id });
    expect(() =>
      prepareUpdate(State, { messages: [{ type: "robot", content: "x" }] }, "n"),
    ).toThrow(StateUpdateError);
  });
});
