/**
 * Large binary parts in a durable conversation: each image is stored once in the event log,
 * not once per step; reloading cold, forking and JSON give the same parts back exactly. On
 * every store.
 */
import { createHash } from "node:crypto";
import { expect, it } from "vitest";
import type { Message } from "../../src/chat/messages.js";
import type { ContentPart } from "../../src/chat/parts.js";
import { buildReactAgent, HumanMessage, ScriptedChat } from "../../src/index.js";
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
    // The snapshot refers to the events that hold the images.
    expect((snapshot!.data as { format: number }).format).toBe(2);
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
