/**
 * Packed snapshots (format 3) against the rule that the store is the truth, on every store:
 * the snapshot a run keeps of its own position (not a fold: what its nodes wrote, as they
 * wrote it), read back cold, gives exactly what a fold of every stored event gives, for
 * messages a node writes as plain objects (an optional key present but `undefined`, or holding
 * its default `{}`), and for messages `Replace` puts in place unchecked (unusual text, compact
 * tool calls, keys out of order, extra keys, a key that holds `undefined`); a damaged snapshot
 * that names packed a field that is not a messages field is not used; a state whose fields are
 * named like a snapshot's keys has both its messages fields packed, nothing else.
 */
import { expect, it } from "vitest";
import { z } from "zod";
import { AIMessage, HumanMessage } from "../../src/chat/messages.js";
import { Graph } from "../../src/graph/graph.js";
import { SNAPSHOT_AFTER_RUN_EVENTS } from "../../src/graph/load-position.js";
import { node, START } from "../../src/graph/node.js";
import { END, when } from "../../src/graph/routing.js";
import type { JsonObject } from "../../src/json/index.js";
import { defineState, messagesField } from "../../src/state/define-state.js";
import { Replace } from "../../src/state/replace.js";
import type { StateStore } from "../../src/stores/types.js";
import { eventsOnly } from "./snapshot.fixture.js";
import { describeStores } from "./stores.js";

const State = defineState({
  messages: messagesField(),
  n: z.number().default(0),
  limit: z.number().default(0),
  /** A list of lists that is not messages (a damaged snapshot may name it packed). */
  pairs: z.array(z.array(z.string())).default([["human", "h"]]),
});
type S = typeof State.State;

/** Messages as a node may write them: not made by `AIMessage`, so their keys are as given. */
const written: unknown[] = [
  { type: "ai", id: "a0", content: "x", responseMetadata: undefined },
  { type: "ai", id: "a1", content: "y", responseMetadata: {} },
  { type: "ai", id: "a2", content: "z", responseMetadata: { model: "m" } },
];

/** One node looping until `n` reaches `limit` (an event per step), writing `written` first. */
function loop(store: StateStore): Graph<typeof State> {
  const step = node(
    (s: S) => ({ messages: s.n < written.length ? [written[s.n] as never] : [], n: s.n + 1 }),
    { name: "step" },
  );
  return new Graph(State, { name: "loop", stateStore: store, maxSteps: 10_000 }).flow(
    START.to(step),
    step.to(when((s: S) => s.n < s.limit, step, { otherwise: END })),
  );
}

describeStores("packed snapshots of messages written as plain objects", (fx) => {
  it("a run's snapshot of its own position is kept, and read cold gives what the events fold to", async () => {
    const store = await fx.open();
    const g = loop(store);
    await g.invoke({ limit: SNAPSHOT_AFTER_RUN_EVENTS }, { threadId: "t" });
    const lastSeq = (await store.getBranch("t", "main"))!.lastSeq;
    expect(lastSeq).toBeGreaterThanOrEqual(SNAPSHOT_AFTER_RUN_EVENTS);
    const kept = await store.loadSnapshot("t", "main");
    expect(kept?.seq).toBe(lastSeq);
    const data = kept!.data as JsonObject;
    expect([data.format, data.packed, (data.state as JsonObject).messages]).toEqual([
      3,
      ["messages"],
      [
        ["ai", "a0", "x"],
        ["ai", "a1", "y"],
        ["ai", "a2", "z", null, [], [], null, {}, { model: "m" }],
      ],
    ]);
    const fold = await loop(eventsOnly(await fx.reopen(store))).getState("t");
    const expected = [
      { type: "ai", id: "a0", content: "x", refusal: null, toolCalls: [], reasoning: [] },
      { type: "ai", id: "a1", content: "y", refusal: null, toolCalls: [], reasoning: [] },
      { type: "ai", id: "a2", content: "z", refusal: null, toolCalls: [], reasoning: [] },
    ].map((m) => ({ ...m, finishReason: null, usage: {} }));
    expected[2] = { ...expected[2]!, responseMetadata: { model: "m" } } as never;
    expect(JSON.stringify(fold.state.messages)).toBe(JSON.stringify(expected));
    const cold = await loop(await fx.reopen(store)).getState("t");
    expect(JSON.stringify(cold.state)).toBe(JSON.stringify(fold.state));
    // The run's own (warm) view is the same.
    expect(JSON.stringify((await g.getState("t")).state)).toBe(JSON.stringify(fold.state));
  });

  it("messages put in place by Replace (kept as given, not checked) are read back as the events hold them", async () => {
    // A list that packs: unusual text, a tool call in its stored (compact) form, an optional
    // key present and empty, a tool message of defaults. And lists that do not pack (a key out
    // of order, an extra key, a key that holds undefined): kept as they are (format 1).
    const packable = [
      { type: "human", id: "r0", content: 'é 😀 \u2028 \u0000 "q" \\' },
      {
        type: "ai",
        id: "r1",
        content: "",
        refusal: null,
        toolCalls: [{ id: "c", name: "t" }],
        reasoning: [],
        finishReason: null,
        usage: {},
        responseMetadata: {},
      },
      { type: "tool", id: "r2", content: null, name: null, toolCallId: null, arguments: null },
    ];
    const human = { type: "human", id: "h", content: "x" };
    const cases: [string, unknown[], number][] = [
      ["packs", packable, 3],
      ["out of order", [human, { id: "o", type: "human", content: "y" }], 1],
      ["extra key", [human, { ...human, id: "e", extra: 1 }], 1],
      ["undefined id", [human, { type: "human", id: undefined, content: "u" }], 1],
    ];
    const store = await fx.open();
    for (const [threadId, messages, format] of cases) {
      const g = loop(store);
      await g.updateState(threadId, { messages: Replace(messages as never), n: written.length });
      await g.invoke({ limit: SNAPSHOT_AFTER_RUN_EVENTS }, { threadId });
      const lastSeq = (await store.getBranch(threadId, "main"))!.lastSeq;
      const kept = await store.loadSnapshot(threadId, "main");
      expect([threadId, kept?.seq, (kept?.data as JsonObject | undefined)?.format]).toEqual([
        threadId,
        lastSeq,
        format,
      ]);
      const fold = await loop(eventsOnly(await fx.reopen(store))).getState(threadId);
      expect(JSON.stringify(fold.state.messages)).toBe(JSON.stringify(messages));
      const cold = await loop(await fx.reopen(store)).getState(threadId);
      expect(JSON.stringify(cold.state)).toBe(JSON.stringify(fold.state));
    }
  }, 60_000);
});

describeStores("damaged packed snapshots", (fx) => {
  it("one that names packed a field that is not a messages field is not used", async () => {
    const store = await fx.open();
    await loop(store).invoke({ limit: 70 }, { threadId: "t" });
    // A new graph's run: its load folds 72 events and keeps a snapshot, its messages packed.
    await loop(await fx.reopen(store)).invoke({ limit: 71 }, { threadId: "t" });
    const kept = (await store.loadSnapshot("t", "main"))!;
    const data = kept.data as JsonObject;
    expect([kept.seq, data.format, data.packed]).toEqual([72, 3, ["messages"]]);
    const fold = JSON.stringify(await loop(eventsOnly(await fx.reopen(store))).getState("t"));
    for (const packed of [["messages", "pairs"], ["messages", "n"], ["pairs"]]) {
      await store.saveSnapshot("t", "main", { seq: kept.seq, data: { ...data, packed } });
      const cold = await loop(await fx.reopen(store)).getState("t");
      expect(JSON.stringify(cold)).toBe(fold);
    }
  });
});

/** Two messages fields named like a snapshot's keys, and other fields named so too. */
const Named = defineState({
  packed: messagesField(),
  format: messagesField(),
  partRefs: z.array(z.array(z.string())).default([]),
  definition: z.string().default("d"),
  n: z.number().default(0),
});

function named(store: StateStore): Graph<typeof Named> {
  const turn = node(
    (s: typeof Named.State) => ({
      packed: [HumanMessage({ id: `h${s.n}`, content: `q ${s.n}` })],
      format:
        s.n % 2 === 0
          ? []
          : [
              AIMessage({
                id: `a${s.n}`,
                content: [{ type: "text", text: "t" }],
                usage: { inputTokens: s.n },
              }),
            ],
      partRefs: [["human", `x${s.n}`]], // (a list of lists, replaced each turn: not packed)
      n: s.n + 1,
    }),
    { name: "turn" },
  );
  return new Graph(Named, { name: "named", stateStore: store }).flow(START.to(turn), turn.to(END));
}

describeStores("packed snapshots of a state with fields named like a snapshot's keys", (fx) => {
  it("packs both messages fields and nothing else; read cold, gives what the events fold to", async () => {
    const store = await fx.open();
    for (let t = 0; t < 22; t++) await named(store).invoke({}, { threadId: "t" });
    // A new graph's run: its load folds 66 events and keeps a snapshot.
    await named(await fx.reopen(store)).invoke({}, { threadId: "t" });
    const kept = (await store.loadSnapshot("t", "main"))!;
    const data = kept.data as JsonObject;
    const state = data.state as JsonObject;
    expect([
      kept.seq,
      data.format,
      data.packed,
      data.partRefs,
      state.partRefs,
      state.format,
    ]).toEqual([
      66,
      3,
      ["packed", "format"],
      undefined,
      [["human", "x21"]],
      Array.from({ length: 11 }, (_, i) => [
        "ai",
        `a${2 * i + 1}`,
        [{ type: "text", text: "t" }],
        null,
        [],
        [],
        null,
        { inputTokens: 2 * i + 1 },
      ]),
    ]);
    const cold = await named(await fx.reopen(store)).getState("t");
    const fold = await named(eventsOnly(await fx.reopen(store))).getState("t");
    expect(JSON.stringify(cold)).toBe(JSON.stringify(fold));
    expect([cold.state.packed.length, cold.state.format.length, cold.state.definition]).toEqual([
      23,
      11,
      "d",
    ]);
  });
});
