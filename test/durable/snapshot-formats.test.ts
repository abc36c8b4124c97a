/**
 * Snapshot formats a reader meets, on every store: a format-2 snapshot (what versions before
 * packed messages wrote: large parts as references to events, messages as objects) is read
 * as it is; a format-3 one (packed, with part references) whose packed list is damaged, or
 * that does not name its packed fields, is not used (the events are folded). Either way a cold
 * read gives exactly what a fold of every stored event gives (the store is the truth).
 */
import { createHash } from "node:crypto";
import { expect, it } from "vitest";
import type { ContentPart } from "../../src/chat/parts.js";
import { buildReactAgent, HumanMessage, ScriptedChat } from "../../src/index.js";
import type { JsonObject, JsonValue } from "../../src/json/index.js";
import { unpackMessages } from "../../src/state/messages-pack.js";
import type { StateStore } from "../../src/stores/types.js";
import { eventsOnly } from "./snapshot.fixture.js";
import { describeStores } from "./stores.js";

/** A distinct base64 "image" of 5,000 characters (a part a snapshot refers to). */
function image(n: number): string {
  const seed = createHash("sha256").update(String(n)).digest("base64");
  return seed.repeat(Math.ceil(5000 / seed.length)).slice(0, 5000);
}

/** The store, with the `afterSeq` of each of its reads recorded in `reads`. */
function recorded(store: StateStore, reads: number[]): StateStore {
  return new Proxy(store, {
    get(target, key, receiver) {
      const v = Reflect.get(target, key, receiver);
      if (typeof v !== "function") return v;
      if (key !== "read") return v.bind(target);
      return (...args: unknown[]) => {
        reads.push((args[2] as { afterSeq?: number } | undefined)?.afterSeq ?? 0);
        return v.apply(target, args);
      };
    },
  });
}

const agent = (store: StateStore) =>
  buildReactAgent(new ScriptedChat(["answer"]), { tools: [], stateStore: store });

describeStores("snapshot formats read cold", (fx) => {
  it("reads format 2 as it is; does not use a damaged format 3 with part references", async () => {
    const store = await fx.open();
    // 25 turns (3 events each), each by a new agent: the 23rd turn's load folds 66 events and
    // keeps a snapshot (the later ones fold a short tail).
    for (let t = 0; t < 25; t++) {
      const content: string | ContentPart[] =
        t % 10 === 0
          ? [
              { type: "text", text: `turn ${t} ✓` },
              { type: "image", data: image(t), mediaType: "image/png" },
            ]
          : `turn ${t}`;
      await agent(await fx.reopen(store)).invoke(
        { messages: [HumanMessage({ content })] },
        { threadId: "t" },
      );
    }
    const kept = (await store.loadSnapshot("t", "main"))!;
    const data = kept.data as JsonObject;
    const state = data.state as JsonObject;
    const packed = state.messages as JsonValue[];
    expect([kept.seq, data.format, data.packed, data.partRefs, packed.length]).toEqual([
      66,
      3,
      ["messages"],
      true,
      44,
    ]);
    const fold = JSON.stringify(await agent(eventsOnly(await fx.reopen(store))).getState("t"));
    const read = async (snapshot: JsonValue) => {
      await store.saveSnapshot("t", "main", { seq: kept.seq, data: snapshot });
      const reads: number[] = [];
      const got = await agent(recorded(await fx.reopen(store), reads)).getState("t");
      expect(JSON.stringify(got)).toBe(fold);
      // (The last read is of the events to fold: after the snapshot, or all of them; the reads
      // before it, if any, are of the events that hold the parts it refers to.)
      return reads.at(-1);
    };
    // As kept; then as an earlier version kept it (format 2: the messages as objects).
    expect(await read(data)).toBe(kept.seq);
    const { packed: _p, partRefs: _r, ...rest } = data;
    const format2 = { ...rest, format: 2, state: { ...state, messages: unpackMessages(packed) } };
    expect(JSON.stringify(format2)).toContain('"data":{"$event":');
    expect(await read(format2)).toBe(kept.seq);
    // Damaged: not used, the events are folded.
    const damaged: JsonObject[] = [
      { ...data, state: { ...state, messages: [...packed.slice(1), null] } },
      { ...data, state: { ...state, messages: [["human"], ["nobody", "x"]] } },
      { ...data, packed: ["__proto__"] },
      { ...data, packed: ["messages", 7] },
      { ...data, state: [] },
      // Format 3 that names no packed field (its list would be taken for messages as it is).
      { ...data, packed: [] },
      { ...rest, partRefs: true },
    ];
    for (const d of damaged) expect(await read(d)).toBe(0);
  });
});
