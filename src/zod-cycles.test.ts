import { describe, expect, it } from "vitest";
import { AgentState } from "./agents/agent-state.js";
import { AIMessage, HumanMessage } from "./chat/messages.js";
import { toolCallsSchema } from "./chat/plain-parse.fixture.js";
import { StateStoreError, StateUpdateError } from "./errors/index.js";
import { Graph } from "./graph/graph.js";
import { node, START } from "./graph/node.js";
import { END } from "./graph/routing.js";
import { messagesUpdateSchema } from "./state/add-messages.js";
import { claimOwned, defineState, prepareUpdate } from "./state/define-state.js";
import { MemoryStateStore } from "./stores/memory-state-store.js";
import { lastParseWasPlain, registerTwin, safeParseTwin } from "./zod-cycles.js";
import { zod } from "./zod-runtime.js";

/** An AIMessage whose tool call's arguments refer to themselves. */
function cyclicCall(): AIMessage {
  const args: Record<string, unknown> = { q: "x" };
  args.self = args;
  return AIMessage({
    id: "m1",
    toolCalls: [{ id: "c1", name: "t", arguments: args as never, argumentsError: null }],
  });
}

/** What `f` throws. */
function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error("nothing was thrown");
}

describe("schemas without zod's cycle memoizer (twins)", () => {
  it("parse an update to the same data as the schema itself", () => {
    const shared = { a: [1, { b: null }] };
    const update = [
      HumanMessage({ id: "h1", content: "hi" }),
      AIMessage({
        id: "a1",
        toolCalls: [
          { id: "c1", name: "t", arguments: { x: shared, y: shared }, argumentsError: null },
        ],
      }),
      { type: "remove", id: "h0" },
    ];
    const own = messagesUpdateSchema().safeParse(update);
    const twin = safeParseTwin(messagesUpdateSchema(), update);
    expect(twin).toEqual(own);
    expect(twin.success).toBe(true);
  });

  it("report an invalid update as the schema itself does", () => {
    const bad = [
      { type: "ai", id: "a1", toolCalls: [{ id: "c1", name: "t", arguments: { x: 1n } }] },
    ];
    const own = messagesUpdateSchema().safeParse(bad);
    const twin = safeParseTwin(messagesUpdateSchema(), bad);
    expect(twin.success).toBe(false);
    expect(twin.error!.issues).toEqual(own.error!.issues);
  });

  it("leave a value with a cycle to the schema itself: the update is refused as not JSON", () => {
    const messages = thrown(() => prepareUpdate(AgentState, { messages: [cyclicCall()] }, "think"));
    expect(messages).toBeInstanceOf(StateStoreError);
    expect(messages).toMatchObject({
      message:
        'Cannot store the update of node "think": messages[0].toolCalls[0].arguments.self.self is not JSON (the value contains a cycle)',
      field: "messages[0].toolCalls[0].arguments.self.self",
    });
    const calls = cyclicCall().toolCalls;
    const toolCalls = thrown(() => prepareUpdate(AgentState, { toolCalls: calls }, "think"));
    expect(toolCalls).toBeInstanceOf(StateStoreError);
    expect(toolCalls).toMatchObject({
      message:
        'Cannot store the update of node "think": toolCalls[0].arguments.self.self is not JSON (the value contains a cycle)',
      field: "toolCalls[0].arguments.self.self",
    });
  });

  it("name the field and the path of an invalid value, as the schema itself", () => {
    const e = thrown(() =>
      prepareUpdate(AgentState, { toolCalls: [{ id: "c1", name: 5 }] }, "think"),
    );
    expect(e).toBeInstanceOf(StateUpdateError);
    expect(e).toMatchObject({
      message:
        'Invalid value for state field "toolCalls" written by node "think" at toolCalls[0].name: Invalid input: expected string, received number',
      node: "think",
      field: "toolCalls",
    });
  });

  it("a schema without a twin is parsed by itself; a twin that throws gives way to it", () => {
    const z = zod();
    const schema = z.object({ n: z.number() });
    expect(safeParseTwin(schema, { n: 1 })).toEqual({ success: true, data: { n: 1 } });
    const throwing = z.object({ n: z.number() }).transform(() => {
      throw new RangeError("too deep");
    });
    registerTwin(schema, throwing);
    expect(safeParseTwin(schema, { n: 2 })).toEqual({ success: true, data: { n: 2 } });
  });
});

describe("lastParseWasPlain after a nested safeParseTwin", () => {
  /** A schema zod parses (it has no twin) that keeps the value as it is, and whose check parses tool calls plainly. */
  const nesting = () =>
    zod().custom<{ tags: string[] }>(() => safeParseTwin(toolCallsSchema(), []).success);

  it("tells of the outer parse, not of the parse its schema ran inside it", () => {
    expect(safeParseTwin(toolCallsSchema(), []).success).toBe(true);
    expect(lastParseWasPlain()).toBe(true);
    const value = { tags: ["a"] };
    const r = safeParseTwin(nesting(), value);
    expect(r.success).toBe(true);
    expect(r.data).toBe(value);
    expect(lastParseWasPlain()).toBe(false);
  });

  it("an update holding the writer's own objects is not taken for a copy", () => {
    const State = defineState({ doc: nesting() });
    const update = prepareUpdate(State, { doc: { tags: ["a"] } }, "n");
    expect(claimOwned(update)).toBe(false);
  });

  it("a node changing the object it returned, later, changes neither the run nor the log", async () => {
    const State = defineState({ doc: nesting().optional(), seen: zod().string().default("") });
    const doc = { tags: ["a"] };
    const a = node(() => ({ doc }), { name: "a" });
    const b = node(
      () => {
        doc.tags.push("later");
        return { seen: "b" };
      },
      { name: "b" },
    );
    const store = new MemoryStateStore();
    const build = () =>
      new Graph(State, { stateStore: store }).flow(START.to(a), a.to(b), b.to(END));
    const r = await build().invoke({}, { threadId: "t" });
    expect(r.state).toEqual({ doc: { tags: ["a"] }, seen: "b" });
    expect((await build().getState("t")).state).toEqual({ doc: { tags: ["a"] }, seen: "b" });
  });
});
