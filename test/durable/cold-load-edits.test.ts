/**
 * Issue 20, item 6, on the memory store, SQLite and PostgreSQL: a thread whose snapshot holds
 * messages that the events after it replace by id (twice in one update, in several updates),
 * remove, remove and add again, plus messages given ids by the reducer; read by a new graph
 * over a new store instance per call (the fold from the snapshot, which merges the tail
 * without an index of the snapshot's messages), it gives exactly what a fold of every event
 * gives and what the graph that wrote it holds, at the end, at events before and after the
 * snapshot, and on a fork.
 */
import { expect, it } from "vitest";
import { AIMessage, HumanMessage, type Message } from "../../src/chat/messages.js";
import { SNAPSHOT_AFTER_EVENTS } from "../../src/graph/load-position.js";
import { RemoveMessage } from "../../src/state/add-messages.js";
import { chatGraph, eventsOnly } from "./snapshot.fixture.js";
import { describeStores } from "./stores.js";

const chat = chatGraph;

const ask = (t: number) => ({ messages: [HumanMessage({ id: `h${t}`, content: `q ${t}` })] });

describeStores("cold load of a tail that edits the snapshot's messages", (fx) => {
  it("gives what a fold of every event gives, and what the writer holds", async () => {
    const store = await fx.open();
    const warm = chat(store);
    const cold = async () => chat(await fx.reopen(store));
    const replay = async () => chat(eventsOnly(await fx.reopen(store)));
    // 22 turns (3 events each), then a cold run: its load folds 66 events and keeps a snapshot.
    for (let t = 0; t < 22; t++) await warm.invoke(ask(t), { threadId: "t" });
    expect(66).toBeGreaterThanOrEqual(SNAPSHOT_AFTER_EVENTS);
    await (await cold()).invoke(ask(22), { threadId: "t" });
    expect((await store.loadSnapshot("t", "main"))!.seq).toBe(66);

    // The tail, each call by a new graph over a new store instance.
    const edit = async (messages: unknown[]) =>
      (await cold()).updateState("t", { messages: messages as Message[] });
    await edit([
      HumanMessage({ id: "h1", content: "q 1 edited" }),
      HumanMessage({ id: "h1", content: "q 1 edited twice" }),
    ]);
    await edit([AIMessage({ id: "a2", content: "edited" }), RemoveMessage("a2")]);
    await edit([RemoveMessage("a3")]);
    const removed = (await store.getBranch("t", "main"))!.lastSeq;
    await edit([AIMessage({ id: "a3", content: "back" })]);
    await edit([HumanMessage({ id: "h4", content: "x" })]);
    await edit([HumanMessage({ id: "h4", content: "y" }), AIMessage({ content: "no id" })]);
    await (await cold()).invoke(ask(23), { threadId: "t" });
    const last = (await store.getBranch("t", "main"))!.lastSeq;
    expect(last).toBe(78);
    // Still the one snapshot: the reads below fold it and the 12 events after it.
    expect((await store.loadSnapshot("t", "main"))!.seq).toBe(66);

    const viaSnapshot = await (await cold()).getState("t");
    const all = await (await replay()).getState("t");
    expect(JSON.stringify(viaSnapshot)).toBe(JSON.stringify(all));
    expect(JSON.stringify(await warm.getState("t"))).toBe(JSON.stringify(all));
    const messages = viaSnapshot.state.messages;
    const noId = messages.find((m) => m.content === "no id")!.id!;
    expect(noId).toMatch(/^[0-9a-f-]{36}$/);
    const want: [string, string][] = [];
    for (let t = 0; t <= 22; t++) {
      want.push([`h${t}`, t === 1 ? "q 1 edited twice" : t === 4 ? "y" : `q ${t}`]);
      if (t !== 2 && t !== 3) want.push([`a${t}`, `answer ${t}`]);
    }
    want.push(["a3", "back"], [noId, "no id"], ["h23", "q 23"], ["a23", "answer 23"]);
    expect(messages.map((m) => [m.id, m.content])).toEqual(want);

    // Time travel: before the snapshot, and in its tail.
    for (const seq of [30, removed, 75, last]) {
      const eventId = `t/main/${seq}`;
      const a = await (await cold()).getState("t", { eventId });
      const b = await (await replay()).getState("t", { eventId });
      expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    }
    const atRemoved = await (await cold()).getState("t", { eventId: `t/main/${removed}` });
    expect(atRemoved.state.messages.map((m) => m.id).slice(-3)).toEqual(["a21", "h22", "a22"]);
    expect(atRemoved.state.messages.some((m) => m.id === "a2" || m.id === "a3")).toBe(false);

    // A fork after the snapshot, edited there: its own fold (no snapshot of its own yet).
    await (await cold()).fork("t", { eventId: `t/main/${removed}`, branchId: "f" });
    await (await cold()).updateState(
      "t",
      { messages: [HumanMessage({ id: "h0", content: "q 0 on f" }), RemoveMessage("h5")] },
      { branchId: "f" },
    );
    const f = await (await cold()).getState("t", { branchId: "f" });
    const fAll = await (await replay()).getState("t", { branchId: "f" });
    expect(JSON.stringify(f)).toBe(JSON.stringify(fAll));
    expect(f.state.messages.slice(0, 2).map((m) => [m.id, m.content])).toEqual([
      ["h0", "q 0 on f"],
      ["a0", "answer 0"],
    ]);
    expect(f.state.messages.some((m) => m.id === "h5" || m.id === "a3")).toBe(false);
  }, 120_000);
});
