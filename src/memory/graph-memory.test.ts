import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { buildReactAgent } from "../agents/react-agent.js";
import { HumanMessage, ScriptedChat } from "../chat/index.js";
import { MemoryStoreError } from "../errors/index.js";
import { Graph } from "../graph/graph.js";
import { node, START } from "../graph/node.js";
import { END } from "../graph/routing.js";
import { InProcessExecutor } from "../graph/sub-agents.js";
import { SqliteMemoryStore } from "../integrations/sqlite/sqlite-memory-store.js";
import { defineState } from "../state/index.js";
import { MemoryStateStore } from "../stores/index.js";
import { callTool } from "../tools/call-tool.js";
import { tool } from "../tools/tool.js";
import { ToolContext } from "../tools/tool-context.js";
import { HashEmbeddings } from "./hash-embeddings.js";
import { InMemoryStore } from "./in-memory-store.js";
import { MemoryRecallMiddleware } from "./recall-middleware.js";
import { memoryKey, memoryTools } from "./tools.js";
import type { MemoryStore } from "./types.js";

const dir = mkdtempSync(join(tmpdir(), "nodestep-graph-memory-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const State = defineState({ fact: z.string().default(""), seen: z.string().default("") });

const write = node(
  async (s: { fact: string }, ctx) => {
    if (s.fact !== "") await ctx.memoryStore!.put(["facts"], "f", { text: s.fact });
    return {};
  },
  { name: "write" },
);
const read = node(
  async (_s: unknown, ctx) => {
    const item = await ctx.memoryStore!.get(["facts"], "f");
    return { seen: item ? String(item.value.text) : "(none)" };
  },
  { name: "read" },
);

function graphOn(memoryStore: MemoryStore | null) {
  return new Graph(State, { name: "mem", stateStore: new MemoryStateStore(), memoryStore }).flow(
    START.to(write),
    write.to(read),
    read.to(END),
  );
}

describe("ctx.memoryStore", () => {
  it("reaches nodes; a run's writes are seen by later runs on other threads, cold too", async () => {
    const path = join(dir, "graph.db");
    const open = () => new SqliteMemoryStore({ path });
    const a = open();
    const r1 = await graphOn(a).invoke({ fact: "blue" }, { threadId: "t1" });
    expect(r1.state).toEqual({ fact: "blue", seen: "blue" });
    await a.close();
    const b = open();
    const r2 = await graphOn(b).invoke({}, { threadId: "t2" });
    expect(r2.state).toEqual({ fact: "", seen: "blue" });
    await b.close();
  });

  it("is replaced by the run's memoryStore option, and refuses what is not a store", async () => {
    const graphStore = new InMemoryStore();
    const runStore = new InMemoryStore();
    await runStore.put(["facts"], "f", { text: "from the run's store" });
    const g = graphOn(graphStore);
    expect((await g.invoke({}, { memoryStore: runStore })).state.seen).toBe("from the run's store");
    expect((await g.invoke({})).state.seen).toBe("(none)");
    const n = node((_s: unknown, ctx) => ({ has: ctx.memoryStore === null }), { name: "n" });
    const none = new Graph(null, { memoryStore: null }).flow(START.to(n), n.to(END));
    expect((await none.invoke({})).state).toEqual({ has: true });
    expect(() => new Graph(null, { name: "g", memoryStore: {} as MemoryStore })).toThrow(
      new TypeError(
        'Graph "g": memoryStore must be a MemoryStore (InMemoryStore, SqliteMemoryStore, PostgresMemoryStore or your own)',
      ),
    );
  });

  it("reaches tools through their context, and expires items by TTL between runs", async () => {
    let now = 5_000;
    const store = new InMemoryStore({ now: () => now });
    const note = tool(
      async ({ text }, ctx) => {
        await ctx.memoryStore!.put(["notes"], "n", { text }, { ttlMs: 1_000 });
        return (await ctx.memoryStore!.get(["notes"], "n"))!.expiresAt;
      },
      { name: "note", description: "Keep a note.", input: z.object({ text: z.string() }) },
    );
    const call = node(
      async (_s: unknown, ctx) => {
        const { value } = await callTool(
          note,
          { text: "hi" },
          ToolContext.fromNodeContext(ctx, {}),
        );
        return { expiresAt: value };
      },
      { name: "call" },
    );
    const g = new Graph(null, { memoryStore: store }).flow(START.to(call), call.to(END));
    expect((await g.invoke({})).state).toEqual({ expiresAt: 6_000 });
    now = 5_999;
    expect((await store.get(["notes"], "n"))?.value).toEqual({ text: "hi" });
    now = 6_000;
    expect(await store.get(["notes"], "n")).toBeNull();
    expect(ToolContext.empty().memoryStore).toBeNull();
    expect(ToolContext.empty({ memoryStore: store }).memoryStore).toBe(store);
  });

  it("reaches sub-agents (spawn and submit) without a store of their own; one with its own keeps it", async () => {
    const Sub = defineState({ seen: z.string().default("") });
    const look = node(
      async (_s: unknown, ctx) => {
        const item = await ctx.memoryStore?.get(["facts"], "f");
        await ctx.memoryStore?.put(["facts"], "by-sub", { text: "written by a sub-agent" });
        return { seen: item ? String(item.value.text) : ctx.memoryStore ? "(none)" : "(no store)" };
      },
      { name: "look" },
    );
    const plain = new Graph(Sub, { name: "plain" }).flow(START.to(look), look.to(END));
    const ownStore = new InMemoryStore();
    await ownStore.put(["facts"], "f", { text: "the sub-agent's own" });
    const own = new Graph(Sub, { name: "own", memoryStore: ownStore }).flow(
      START.to(look),
      look.to(END),
    );
    const executor = new InProcessExecutor();
    const Boss = defineState({ seen: z.array(z.string()).default([]) });
    const boss = node(
      async (_s: unknown, ctx) => {
        const spawned = await ctx.gather(
          await ctx.spawn([
            { graph: plain, input: {} },
            { graph: own, input: {} },
          ]),
        );
        const [handle] = await ctx.submit([{ graph: plain, input: {} }], { executor });
        let polled = await ctx.pollAgents([handle!], { executor });
        while (polled[0] === null) {
          await new Promise((r) => setTimeout(r, 2));
          polled = await ctx.pollAgents([handle!], { executor });
        }
        return {
          seen: [...spawned, polled[0]!].map((r) => (r.state as { seen: string }).seen),
        };
      },
      { name: "boss" },
    );
    const parentStore = new InMemoryStore();
    await parentStore.put(["facts"], "f", { text: "the parent's" });
    const g = new Graph(Boss, { stateStore: new MemoryStateStore(), memoryStore: parentStore });
    g.flow(START.to(boss), boss.to(END));
    expect((await g.invoke({}, { threadId: "boss" })).state.seen).toEqual([
      "the parent's",
      "the sub-agent's own",
      "the parent's",
    ]);
    expect((await parentStore.get(["facts"], "by-sub"))?.value).toEqual({
      text: "written by a sub-agent",
    });
    expect((await ownStore.get(["facts"], "by-sub"))?.value).toEqual({
      text: "written by a sub-agent",
    });
    // A run's memoryStore option reaches its sub-agents too; a run without any gives them none.
    const runStore = new InMemoryStore();
    await runStore.put(["facts"], "f", { text: "the run's" });
    expect((await g.invoke({}, { threadId: "boss-2", memoryStore: runStore })).state.seen).toEqual([
      "the run's",
      "the sub-agent's own",
      "the run's",
    ]);
    expect((await g.invoke({}, { threadId: "boss-3", memoryStore: null })).state.seen).toEqual([
      "(no store)",
      "the sub-agent's own",
      "(no store)",
    ]);
  });
});

describe("memoryTools and MemoryRecallMiddleware", () => {
  const embeddings = new HashEmbeddings({ dimensions: 32 });
  const index = { embeddings, dimensions: 32, fields: ["content"] };

  it("remember, recall and forget in the run's namespace", async () => {
    const store = new InMemoryStore({ index });
    const [remember, recall, forget] = memoryTools<{ user: string }>({
      namespace: (ctx) => ["users", ctx.context.user],
    }) as [never, never, never];
    const ctx = (user: string) => ToolContext.empty({ context: { user }, memoryStore: store });
    const key = memoryKey("likes jazz");
    expect((await callTool(remember, { content: "likes jazz" }, ctx("ann"))).value).toEqual({
      key,
    });
    expect(await store.get(["users", "ann"], key)).toMatchObject({
      value: { content: "likes jazz" },
    });
    const found = (await callTool(recall, { query: "jazz" }, ctx("ann"))).value as {
      memories: { key: string; content: string; score: number }[];
    };
    expect(found.memories.map((m) => [m.key, m.content])).toEqual([[key, "likes jazz"]]);
    expect((await callTool(recall, { query: "jazz" }, ctx("bob"))).value).toEqual({ memories: [] });
    expect((await callTool(forget, { key }, ctx("ann"))).value).toEqual({ key, deleted: true });
    expect((await callTool(forget, { key }, ctx("ann"))).value).toEqual({ key, deleted: false });
    const error = await callTool(
      remember,
      { content: "x" },
      ToolContext.empty({ context: { user: "a" } }),
    ).catch((e: unknown) => e);
    expect((error as Error).message).toContain(
      'Tool "remember" needs a memory store: give the graph (or the run) { memoryStore }, or memoryTools({ store })',
    );
    expect(() => memoryTools({ namespace: () => ["a"], recallLimit: 21 })).toThrow(
      new MemoryStoreError("memoryTools: recallLimit must be a whole number from 1 to 20, got 21"),
    );
  });

  it("an agent learns a fact on one thread and the middleware gives it to the model on another", async () => {
    const stateStore = new MemoryStateStore();
    const memoryStore = new InMemoryStore({ index });
    const chat = new ScriptedChat([
      {
        toolCalls: [
          { id: "c1", name: "remember", arguments: { content: "The user's dog is called Rex." } },
        ],
      },
      "Noted.",
      "Your dog is Rex.",
    ]);
    const agent = buildReactAgent(chat, {
      stateStore,
      memoryStore,
      tools: memoryTools({ namespace: () => ["u1"] }),
      middleware: [MemoryRecallMiddleware({ namespace: () => ["u1"], limit: 2 })],
    });
    await agent.invoke(
      { messages: [HumanMessage({ content: "My dog is called Rex." })] },
      { threadId: "a" },
    );
    const r = await agent.invoke(
      { messages: [HumanMessage({ content: "What is my dog called?" })] },
      { threadId: "b" },
    );
    expect(r.state.messages.at(-1)?.content).toBe("Your dog is Rex.");
    const sent = chat.requests[2]!.messages;
    expect(sent.map((m) => [m.type, m.content])).toEqual([
      ["system", "Relevant memories (most relevant first):\n- The user's dog is called Rex."],
      ["human", "What is my dog called?"],
    ]);
    expect(r.state.messages.map((m) => m.type)).toEqual(["human", "ai"]);
  });
});
