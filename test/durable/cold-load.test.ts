/**
 * Issue 20, item 6 (cold load), on the memory store, SQLite and PostgreSQL: a new process (a
 * new graph over a new store instance) reads a long conversation through the snapshot its runs
 * kept plus the tail after it, and gets exactly what a fold of every stored event gives (the
 * store is the truth: a snapshot only saves work); and reading a thread writes nothing.
 */
import { expect, it } from "vitest";
import { z } from "zod";
import { buildReactAgent } from "../../src/agents/index.js";
import type { Chat, ChatResponseInit } from "../../src/chat/types.js";
import { SNAPSHOT_AFTER_EVENTS, SNAPSHOT_AFTER_RUN_EVENTS } from "../../src/graph/load-position.js";
import { HumanMessage } from "../../src/index.js";
import type { JsonObject, JsonValue } from "../../src/json/index.js";
import { unpackMessages } from "../../src/state/messages-pack.js";
import type { Snapshot, StateStore, StoredEvent } from "../../src/stores/types.js";
import { tool } from "../../src/tools/index.js";
import { eventsOnly } from "./snapshot.fixture.js";
import { describeStores } from "./stores.js";

/** Answers "answer N" to the N-th call. */
function chat(): Chat {
  let n = 0;
  return {
    model: "count",
    async complete(): Promise<ChatResponseInit> {
      n += 1;
      return { content: `answer ${n}`, toolCalls: [] };
    },
    stream() {
      throw new Error("not used");
    },
  };
}

/** What a store was asked: every method called, and what its reads returned. */
interface Calls {
  methods: string[];
  snapshots: (Snapshot | null)[];
  reads: { afterSeq: number; events: number }[];
}

/** The store, recording its calls. */
function recorded(store: StateStore): { store: StateStore; calls: Calls } {
  const calls: Calls = { methods: [], snapshots: [], reads: [] };
  const proxy = new Proxy(store, {
    get(target, key, receiver) {
      const v = Reflect.get(target, key, receiver);
      if (typeof v !== "function") return v;
      return (...args: unknown[]) => {
        calls.methods.push(String(key));
        const out = v.apply(target, args);
        if (key === "loadSnapshot") {
          return (out as Promise<Snapshot | null>).then((s) => {
            calls.snapshots.push(s);
            return s;
          });
        }
        if (key === "read") {
          const options = (args[2] ?? {}) as { afterSeq?: number };
          return (out as Promise<StoredEvent[]>).then((events) => {
            calls.reads.push({ afterSeq: options.afterSeq ?? 0, events: events.length });
            return events;
          });
        }
        return out;
      };
    },
  });
  return { store: proxy, calls };
}

/** A turn writes 3 events (run_started, step_committed, run_finished). */
const EVENTS_PER_TURN = 3;

async function converse(store: StateStore, turns: number): Promise<void> {
  const agent = buildReactAgent(chat(), { tools: [], stateStore: store });
  for (let t = 1; t <= turns; t++) {
    await agent.invoke(
      { messages: [HumanMessage({ content: `question ${t}` })] },
      { threadId: "c" },
    );
  }
}

/** Tool calls of the first run of {@link converseWithTools}. */
const TOOL_TURNS = 2047;

const lookup = tool(({ q }) => `found ${q}`, {
  name: "lookup",
  description: "Look up an item by name.",
  input: z.object({ q: z.string() }),
  output: z.string(),
});

/**
 * One run that calls `lookup` TOOL_TURNS times and answers "answer 1", then `turns` runs of
 * one question each (answers "answer 2", "answer 3", …).
 */
async function converseWithTools(store: StateStore, turns: number): Promise<void> {
  let n = 0;
  const script: Chat = {
    model: "tools",
    async complete(): Promise<ChatResponseInit> {
      n += 1;
      if (n <= TOOL_TURNS) {
        return { toolCalls: [{ id: `call_${n}`, name: "lookup", arguments: { q: `item ${n}` } }] };
      }
      return { content: `answer ${n - TOOL_TURNS}`, toolCalls: [] };
    },
    stream() {
      throw new Error("not used");
    },
  };
  const agent = buildReactAgent(script, {
    tools: [lookup],
    stateStore: store,
    maxSteps: 2 * TOOL_TURNS + 10,
    maxToolCalls: TOOL_TURNS + 10,
  });
  await agent.invoke(
    { messages: [HumanMessage({ content: "Look up every item." })] },
    { threadId: "c" },
  );
  for (let t = 1; t <= turns; t++) {
    await agent.invoke(
      { messages: [HumanMessage({ content: `question ${t}` })] },
      { threadId: "c" },
    );
  }
}

describeStores("cold load", (fx) => {
  it("through the runs' snapshot plus the tail gives exactly what a fold of every event gives", async () => {
    const store = await fx.open();
    // Past one snapshot kept by a run: a first run of TOOL_TURNS tool calls (2 supersteps
    // each, 2 × 2,047 + 3 = 4,097 events: SNAPSHOT_AFTER_RUN_EVENTS or more), then a tail of
    // 20 turns after it (3 events each).
    expect(SNAPSHOT_AFTER_RUN_EVENTS).toBe(4096);
    const firstRun = 2 * TOOL_TURNS + 3;
    expect(firstRun).toBeGreaterThanOrEqual(SNAPSHOT_AFTER_RUN_EVENTS);
    const turns = 20;
    await converseWithTools(store, turns);
    const last = (await store.getBranch("c", "main"))!.lastSeq;
    expect(last).toBe(firstRun + turns * EVENTS_PER_TURN);
    const kept = (await store.loadSnapshot("c", "main"))!.seq;
    expect(kept).toBe(firstRun);

    const { store: cold, calls } = recorded(await fx.reopen(store));
    const viaSnapshot = await buildReactAgent(chat(), { tools: [], stateStore: cold }).getState(
      "c",
    );
    // It read the snapshot and the events after it, nothing more.
    expect(calls.snapshots.map((s) => s?.seq)).toEqual([kept]);
    expect(calls.reads).toEqual([{ afterSeq: kept, events: last - kept }]);

    const replay = await buildReactAgent(chat(), {
      tools: [],
      stateStore: eventsOnly(await fx.reopen(store)),
    }).getState("c");
    expect(viaSnapshot).toEqual(replay);
    // Key for key, in the same order.
    expect(JSON.stringify(viaSnapshot)).toBe(JSON.stringify(replay));
    expect(viaSnapshot.state.messages).toHaveLength(2 * TOOL_TURNS + 2 + 2 * turns);
    expect(viaSnapshot.state.messages.at(-1)).toEqual({
      type: "ai",
      id: viaSnapshot.state.messages.at(-1)!.id,
      content: `answer ${turns + 1}`,
      refusal: null,
      toolCalls: [],
      reasoning: [],
      finishReason: null,
      usage: {},
    });
    expect([viaSnapshot.status, viaSnapshot.next, viaSnapshot.lastEventId]).toEqual([
      "completed",
      [],
      `c/main/${last}`,
    ]);
    // (About 4,200 appends write the thread: past the default timeout on a loaded PostgreSQL.)
  }, 180_000);

  it("a read writes nothing, even when it folds a long tail", async () => {
    const store = await fx.open();
    // Fewer events than a run's snapshot needs, more than a run's load keeps one for.
    const turns = Math.ceil(SNAPSHOT_AFTER_EVENTS / EVENTS_PER_TURN) + 5;
    expect(turns * EVENTS_PER_TURN).toBeLessThan(SNAPSHOT_AFTER_RUN_EVENTS);
    await converse(store, turns);
    expect(await store.loadSnapshot("c", "main")).toBeNull();

    const { store: cold, calls } = recorded(await fx.reopen(store));
    const agent = buildReactAgent(chat(), { tools: [], stateStore: cold });
    const state = await agent.getState("c");
    expect(state.state.messages).toHaveLength(2 * turns);
    // Asked only what reads: the branch, its snapshot, its events.
    expect(calls.methods).toEqual(["getBranch", "loadSnapshot", "read"]);
    expect(calls.reads).toEqual([{ afterSeq: 0, events: turns * EVENTS_PER_TURN }]);
    // And the store holds what it held.
    expect(await store.loadSnapshot("c", "main")).toBeNull();
    expect((await store.getBranch("c", "main"))!.lastSeq).toBe(turns * EVENTS_PER_TURN);

    // A run's cold load of the same thread (a new graph: this one's read is in its cache)
    // keeps a snapshot of what it folded.
    const before = calls.methods.length;
    const runner = buildReactAgent(chat(), { tools: [], stateStore: cold });
    await runner.invoke({ messages: [HumanMessage({ content: "one more" })] }, { threadId: "c" });
    expect(calls.methods.slice(before)).toContain("saveSnapshot");
    expect((await store.loadSnapshot("c", "main"))!.seq).toBe(turns * EVENTS_PER_TURN);
  });

  it("reads a packed snapshot, an unpacked one (format 1) alike, and not a damaged one", async () => {
    const store = await fx.open();
    const turns = Math.ceil(SNAPSHOT_AFTER_EVENTS / EVENTS_PER_TURN) + 5;
    await converse(store, turns);
    // A run's cold load folds the whole thread, so keeps a snapshot: its messages packed.
    const runner = buildReactAgent(chat(), { tools: [], stateStore: await fx.reopen(store) });
    await runner.invoke({ messages: [HumanMessage({ content: "one more" })] }, { threadId: "c" });
    const kept = (await store.loadSnapshot("c", "main"))!;
    const data = kept.data as JsonObject;
    const packed = (data.state as JsonObject).messages as JsonValue[];
    expect([kept.seq, data.format, data.packed, packed.length, packed[0]]).toEqual([
      turns * EVENTS_PER_TURN,
      3,
      ["messages"],
      2 * turns,
      ["human", (packed[0] as string[])[1], "question 1"],
    ]);
    const replay = await buildReactAgent(chat(), {
      tools: [],
      stateStore: eventsOnly(await fx.reopen(store)),
    }).getState("c");
    const read = async () => {
      const { store: cold, calls } = recorded(await fx.reopen(store));
      const state = await buildReactAgent(chat(), { tools: [], stateStore: cold }).getState("c");
      return { state, afterSeq: calls.reads.map((r) => r.afterSeq) };
    };
    const viaPacked = await read();
    expect(viaPacked.afterSeq).toEqual([kept.seq]);
    expect(JSON.stringify(viaPacked.state)).toBe(JSON.stringify(replay));

    // What an earlier version kept: format 1, the messages as objects. Still read as it is.
    const { packed: _, ...rest } = data;
    const unpacked = {
      ...rest,
      format: 1,
      state: { ...(data.state as JsonObject), messages: unpackMessages(packed) },
    };
    await store.saveSnapshot("c", "main", { seq: kept.seq, data: unpacked as JsonValue });
    const viaFormat1 = await read();
    expect(viaFormat1.afterSeq).toEqual([kept.seq]);
    expect(JSON.stringify(viaFormat1.state)).toBe(JSON.stringify(replay));

    // A packed list that does not unpack: the snapshot is not used, the events give the state.
    for (const damaged of [
      {
        ...data,
        state: { ...(data.state as JsonObject), messages: [...packed.slice(1), { type: "human" }] },
      },
      { ...data, packed: ["nothing"] },
      { ...data, packed: "messages" },
    ]) {
      await store.saveSnapshot("c", "main", { seq: kept.seq, data: damaged as JsonValue });
      const via = await read();
      expect(via.afterSeq).toEqual([0]);
      expect(JSON.stringify(via.state)).toBe(JSON.stringify(replay));
    }
  });
});
