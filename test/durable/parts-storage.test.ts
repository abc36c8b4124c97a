/**
 * Large binary parts in a durable conversation: each image is stored once in the event log,
 * not once per step; reloading cold, forking and JSON give the same parts back exactly. On
 * every store, for an agent (messages through addMessages) and for a plain-object graph (the
 * whole list written by every step and every input).
 */
import { createHash } from "node:crypto";
import { expect, it } from "vitest";
import type { Message } from "../../src/chat/messages.js";
import type { ContentPart } from "../../src/chat/parts.js";
import {
  buildReactAgent,
  END,
  Graph,
  HumanMessage,
  modelNode,
  ScriptedChat,
  START,
} from "../../src/index.js";
import type { StateStore } from "../../src/stores/types.js";
import { describeStores } from "./stores.js";

/** A distinct base64 "image" of about `bytes` bytes. */
function image(n: number, bytes: number): string {
  const seed = createHash("sha256").update(String(n)).digest("base64");
  return seed.repeat(Math.ceil(bytes / seed.length)).slice(0, bytes);
}

function occurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) count++;
  return count;
}

const TURNS = 30;
const EVERY = 10;
const SIZE = 50_000;

async function converse(open: () => Promise<StateStore>, threadId: string) {
  const images: string[] = [];
  for (let t = 0; t < TURNS; t++) {
    const store = await open();
    // A new agent per turn: every turn loads the thread cold from the store.
    const agent = buildReactAgent(new ScriptedChat([`answer ${t}`]), {
      tools: [],
      stateStore: store,
    });
    const content: string | ContentPart[] =
      t % EVERY === 0
        ? [
            { type: "text", text: `turn ${t}: look` },
            { type: "image", data: image(t, SIZE), mediaType: "image/png" },
          ]
        : `turn ${t}`;
    if (t % EVERY === 0) images.push(image(t, SIZE));
    await agent.invoke({ messages: [HumanMessage({ content })] }, { threadId });
  }
  return images;
}

describeStores("images in a durable conversation", (fx) => {
  it("stores each image once in the event log; a cold reload gives every part back exactly", async () => {
    const store = await fx.open();
    const images = await converse(() => fx.reopen(store), "t1");
    const events = await store.read("t1", "main");
    const log = events.map((e) => JSON.stringify(e.data)).join("\n");
    expect(images.map((i) => occurrences(log, i))).toEqual(images.map(() => 1));
    const snapshot = await store.loadSnapshot("t1", "main");
    const kept = JSON.stringify(snapshot?.data ?? null);
    expect([snapshot !== null, images.map((i) => occurrences(kept, i))]).toEqual([
      true,
      images.map(() => 0),
    ]);
    // The snapshot refers to the events that hold the images (format 3: its messages packed,
    // src/graph/snapshot-format.ts).
    const { format, packed, partRefs } = snapshot!.data as Record<string, unknown>;
    expect({ format, packed, partRefs }).toEqual({
      format: 3,
      packed: ["messages"],
      partRefs: true,
    });
    expect(occurrences(kept, '"data":{"$event":')).toBe(images.length);
    const cold = buildReactAgent(new ScriptedChat([]), {
      tools: [],
      stateStore: await fx.reopen(store),
    });
    const state = await cold.getState("t1");
    const messages = state.state.messages;
    expect(messages).toHaveLength(TURNS * 2);
    expect(messages[0]).toEqual({
      type: "human",
      id: messages[0]!.id,
      content: [
        { type: "text", text: "turn 0: look" },
        { type: "image", data: images[0], mediaType: "image/png" },
      ],
    });
    expect(JSON.parse(JSON.stringify(messages))).toEqual(messages);
    const withImages = messages.filter((m: Message) => Array.isArray(m.content));
    expect(withImages.map((m: Message) => (m.content as ContentPart[])[1])).toEqual(
      images.map((data) => ({ type: "image", data, mediaType: "image/png" })),
    );
    // A snapshot whose reference cannot be resolved is not used: the events give the same state.
    const broken = kept.replace('"$path":["', '"$path":["nowhere","');
    await store.saveSnapshot("t1", "main", { seq: snapshot!.seq, data: JSON.parse(broken) });
    const again = buildReactAgent(new ScriptedChat([]), {
      tools: [],
      stateStore: await fx.reopen(store),
    });
    expect((await again.getState("t1")).state.messages).toEqual(messages);
  });

  it("a fork gives the same parts back, and its own events do not repeat the images", async () => {
    const store = await fx.open();
    const images = await converse(() => fx.reopen(store), "t2");
    const agent = buildReactAgent(new ScriptedChat(["forked"]), {
      tools: [],
      stateStore: await fx.reopen(store),
    });
    const history = await agent.history("t2");
    const branch = await agent.fork("t2", { eventId: history[Math.floor(history.length / 2)]!.id });
    const forked = (await agent.getState("t2", { branchId: branch.branchId })).state.messages;
    const main = (await agent.getState("t2")).state.messages;
    expect(forked.length).toBeGreaterThan(EVERY * 2);
    expect(forked).toEqual(main.slice(0, forked.length));
    await agent.invoke(
      { messages: [HumanMessage({ content: "on the fork" })] },
      { threadId: "t2", branchId: branch.branchId },
    );
    const own = (await store.read("t2", branch.branchId)).filter(
      (e) => e.branchId === branch.branchId,
    );
    const log = own.map((e) => JSON.stringify(e.data)).join("\n");
    expect(images.map((i) => occurrences(log, i))).toEqual(images.map(() => 0));
  });
});

/** A plain-object chat graph (no defineState): its model node writes the whole message list. */
function plainChat(store: StateStore, answers: string[]) {
  const think = modelNode("think", { chat: new ScriptedChat(answers) });
  return new Graph(null, { name: "plain-chat", stateStore: store }).flow(
    START.to(think),
    think.to(END),
  );
}

describeStores("images in a durable plain-object conversation", (fx) => {
  it("stores each image once though every input and step writes the whole list; cold reloads and a fork give it back exactly", async () => {
    const store = await fx.open();
    const images: string[] = [];
    let messages: Message[] = [];
    for (let t = 0; t < TURNS; t++) {
      // A new graph and store handle per turn; the caller sends the whole history back (a
      // plain-object state has no reducer), read from getState.
      const graph = plainChat(await fx.reopen(store), [`answer ${t}`]);
      const content: string | ContentPart[] =
        t % EVERY === 0
          ? [
              { type: "text", text: `turn ${t}: look` },
              { type: "image", data: image(t, SIZE), mediaType: "image/png" },
            ]
          : `turn ${t}`;
      if (t % EVERY === 0) images.push(image(t, SIZE));
      // (Read by another graph: the running graph's own read would fill its position cache, and
      // its next run's load would fold nothing and keep no snapshot.)
      const before =
        t === 0 ? [] : ((await plainChat(store, []).getState("p1")).state.messages as Message[]);
      const result = await graph.invoke(
        { messages: [...before, HumanMessage({ content })] },
        { threadId: "p1" },
      );
      messages = result.state.messages as Message[];
    }
    expect(messages).toHaveLength(TURNS * 2);
    const events = await store.read("p1", "main");
    const log = events.map((e) => JSON.stringify(e.data)).join("\n");
    expect(images.map((i) => occurrences(log, i))).toEqual(images.map(() => 1));
    // The log is about the images and the texts: far from one copy per step.
    const imageChars = images.length * SIZE;
    expect(log.length).toBeLessThan(imageChars + 40_000);
    // Inputs and steps after the first store the items they add.
    const extended = events.filter((e) => (e.data as { extend?: unknown }).extend !== undefined);
    expect(extended.length).toBe(TURNS * 2 - 1);
    const cold = plainChat(await fx.reopen(store), []);
    const state = (await cold.getState("p1")).state;
    expect(JSON.stringify(state.messages)).toBe(JSON.stringify(messages));
    expect((state.messages as Message[])[20]!.content).toEqual([
      { type: "text", text: "turn 10: look" },
      { type: "image", data: images[1], mediaType: "image/png" },
    ]);
    // The snapshot a run's load wrote refers to the events holding the images.
    const snapshot = await store.loadSnapshot("p1", "main");
    expect(snapshot).not.toBeNull();
    const kept = JSON.stringify(snapshot!.data);
    expect(images.map((i) => occurrences(kept, i))).toEqual(images.map(() => 0));
    const again = plainChat(await fx.reopen(store), []);
    expect(JSON.stringify((await again.getState("p1")).state.messages)).toBe(
      JSON.stringify(messages),
    );
    // A fork after turn 10 folds to the state the run had then, images included.
    const afterTurn10 = events.filter((e) => e.type === "run_finished")[10]!;
    const branch = await again.fork("p1", { eventId: afterTurn10.id });
    const atFork = (
      await plainChat(await fx.reopen(store), []).getState("p1", {
        branchId: branch.branchId,
      })
    ).state.messages;
    expect(JSON.stringify(atFork)).toBe(JSON.stringify(messages.slice(0, 22)));
    const forkGraph = plainChat(await fx.reopen(store), ["forked"]);
    const forked = await forkGraph.invoke(
      { messages: [...(atFork as Message[]), HumanMessage({ content: "on the fork" })] },
      { threadId: "p1", branchId: branch.branchId },
    );
    expect((forked.state.messages as Message[]).map((m) => m.content).slice(-2)).toEqual([
      "on the fork",
      "forked",
    ]);
    const own = (await store.read("p1", branch.branchId)).filter(
      (e) => e.branchId === branch.branchId,
    );
    const ownLog = own.map((e) => JSON.stringify(e.data)).join("\n");
    expect(images.map((i) => occurrences(ownLog, i))).toEqual(images.map(() => 0));
  });
});
