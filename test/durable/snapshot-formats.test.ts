/**
 * Snapshot formats a reader meets, on every store: a format-2 snapshot (what versions before
 * packed messages wrote: large parts as references to events, messages as objects) is read
 * as it is; a format-3 one (packed, with part references) whose packed list is damaged, or
 * that does not name its packed fields, is not used (the events are folded); a fork's first
 * snapshot refers to parts its parent's events hold, and a tail that edits it folds on top.
 * Either way a cold read gives exactly what a fold of every stored event gives (the store is
 * the truth).
 */
import { createHash } from "node:crypto";
import { expect, it } from "vitest";
import type { ContentPart } from "../../src/chat/parts.js";
import { buildReactAgent, HumanMessage, ScriptedChat } from "../../src/index.js";
import type { JsonObject, JsonValue } from "../../src/json/index.js";
import { RemoveMessage } from "../../src/state/add-messages.js";
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

/** `turns` turns on thread "t", each by a new agent; turns 0, 10, 20 send an image. */
async function converse(store: StateStore, turns: number): Promise<void> {
  for (let t = 0; t < turns; t++) {
    const content: string | ContentPart[] =
      t % 10 === 0
        ? [
            { type: "text", text: `turn ${t} ✓` },
            { type: "image", data: image(t), mediaType: "image/png" },
          ]
        : `turn ${t}`;
    await agent(store).invoke(
      { messages: [HumanMessage({ id: `h${t}`, content })] },
      { threadId: "t" },
    );
  }
}

describeStores("snapshot formats read cold", (fx) => {
  it("reads format 2 as it is; does not use a damaged format 3 with part references", async () => {
    const store = await fx.open();
    // 25 turns (3 events each), each by a new agent: the 23rd turn's load folds 66 events and
    // keeps a snapshot (the later ones fold a short tail).
    await converse(store, 25);
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
    const { layout: _l, ...noLayout } = data;
    const damaged: JsonObject[] = [
      { ...data, state: { ...state, messages: [...packed.slice(1), null] } },
      { ...data, state: { ...state, messages: [["human"], ["nobody", "x"]] } },
      { ...data, packed: ["__proto__"] },
      { ...data, packed: ["messages", 7] },
      { ...data, state: [] },
      // Packed by a version whose message types have other keys (the values are by position),
      // or not saying by which.
      { ...data, layout: "human:id,content|system:id,content|ai:id|tool:id" },
      noLayout,
      // Format 3 that names no packed field (its list would be taken for messages as it is).
      { ...data, packed: [] },
      { ...rest, partRefs: true },
    ];
    for (const d of damaged) expect(await read(d)).toBe(0);
  });
});

describeStores("a fork's packed snapshot", (fx) => {
  it("refers to parts its parent's events hold; read cold, gives what the fork's events fold to", async () => {
    const store = await fx.open();
    await converse(store, 30);
    // A fork at event 69 (after turn 22); the first load on it (an edit's, by a new agent)
    // folds its 69 events, all its parent's, and keeps the fork's first snapshot.
    await agent(await fx.reopen(store)).fork("t", { eventId: "t/main/69", branchId: "f" });
    await agent(await fx.reopen(store)).updateState(
      "t",
      { messages: [RemoveMessage("h0"), HumanMessage({ id: "h10", content: "no image now" })] },
      { branchId: "f" },
    );
    const kept = (await store.loadSnapshot("t", "f"))!;
    const data = kept.data as JsonObject;
    expect([kept.seq, data.format, data.packed, data.partRefs]).toEqual([
      69,
      3,
      ["messages"],
      true,
    ]);
    // The images of turns 0, 10 and 20, as the parent's events hold them.
    expect(JSON.stringify(data).match(/"\$event":\d+/g)).toEqual([
      '"$event":1',
      '"$event":31',
      '"$event":61',
    ]);
    // The tail after it: the edit (turn 0's message removed, turn 10's replaced), and a new
    // message holding turn 0's image again.
    const again = { type: "image" as const, data: image(0), mediaType: "image/png" };
    await agent(await fx.reopen(store)).invoke(
      { messages: [HumanMessage({ id: "x", content: [again] })] },
      { threadId: "t", branchId: "f" },
    );
    for (const branchId of ["f", "main"]) {
      const cold = await agent(await fx.reopen(store)).getState("t", { branchId });
      const fold = await agent(eventsOnly(await fx.reopen(store))).getState("t", { branchId });
      expect(JSON.stringify(cold)).toBe(JSON.stringify(fold));
    }
    const messages = (await agent(await fx.reopen(store)).getState("t", { branchId: "f" })).state
      .messages;
    expect(messages.find((m) => m.id === "x")!.content).toEqual([again]);
    expect(messages.map((m) => m.id).filter((id) => id === "h0" || id === "h10")).toEqual(["h10"]);
  });
});
