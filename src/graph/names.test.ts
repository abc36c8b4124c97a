import { describe, expect, it } from "vitest";
import { z } from "zod";
import { expectError } from "../../test/helpers.js";
import { GraphConfigError } from "../errors/index.js";
import { defineState } from "../state/define-state.js";
import { fromSpec, refResolver } from "./from-spec.js";
import { Graph } from "./graph.js";
import { NODE_NAME_PATTERN } from "./names.js";
import { node, START } from "./node.js";
import { END } from "./routing.js";

const State = defineState({ n: z.number().default(0) });

describe("node names", () => {
  it("says the name is empty when name is an empty string", async () => {
    const e = await expectError(
      () => node(() => ({}), { name: "" }),
      GraphConfigError,
      'node(fn, { name: "" }): the name is empty',
    );
    expect(e.node).toBe("");
  });

  it("says the function has no name for an anonymous function without a name", async () => {
    await expectError(
      () => node((() => ({})) as never),
      TypeError,
      'node(fn): the function has no name; pass one as node(fn, { name: "..." })',
    );
  });

  it("refuses a name that is not a string", async () => {
    await expectError(
      () => node(() => ({}), { name: 42 as never }),
      TypeError,
      "node(fn): name must be a string, got number",
    );
  });

  it.each(["a b/c", "a/b", "a:b", "a,b", " a", "-a", ".a", "a\n", "ü", "x".repeat(65)])(
    "refuses %j with a GraphConfigError naming the node",
    async (name) => {
      const e = await expectError(
        () => node(() => ({}), { name }),
        GraphConfigError,
        `node ${JSON.stringify(name)}: invalid name; a node name is 1 to 64 letters, digits, "_", "-" and "." (not first), matching ^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$`,
      );
      expect(e.node).toBe(name);
    },
  );

  it("refuses a function name outside the pattern too (a bound function)", async () => {
    function step() {
      return {};
    }
    await expectError(
      () => node(step.bind(null)),
      GraphConfigError,
      'node "bound step": invalid name; a node name is 1 to 64 letters, digits, "_", "-" and "." (not first), matching ^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$',
    );
  });

  it("refuses reserved names with a GraphConfigError", async () => {
    const e = await expectError(
      () => node(() => ({}), { name: "__end__" }),
      GraphConfigError,
      'node(fn): "__end__" is a reserved name',
    );
    expect(e.node).toBe("__end__");
  });

  it.each(["plan", "call_model", "step-2", "v1.fetch", "_x", "9", "x".repeat(64)])(
    "accepts %j and runs it",
    async (name) => {
      expect(NODE_NAME_PATTERN.test(name)).toBe(true);
      const n = node(() => ({ n: 1 }), { name });
      const g = new Graph(State).flow(START.to(n), n.to(END));
      expect((await g.invoke({})).state).toEqual({ n: 1 });
      expect(g.toSpec().nodes.map((x) => x.name)).toEqual([name]);
    },
  );
});

describe("node names in specs", () => {
  it("fromSpec refuses a spec whose node name is outside the pattern, naming the node", async () => {
    const ok = node(() => ({}), { name: "ok", ref: "m#ok" });
    const spec = new Graph(null, { name: "g" }).flow(START.to(ok), ok.to(END)).toSpec();
    const bad = JSON.parse(JSON.stringify(spec).replaceAll('"ok"', '"a b/c"'));
    const e = await expectError(
      () => fromSpec(bad, { resolve: refResolver({ m: { ok: ok.handler } }) }),
      GraphConfigError,
      'node "a b/c": invalid name; a node name is 1 to 64 letters, digits, "_", "-" and "." (not first), matching ^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$',
    );
    expect(e.node).toBe("a b/c");
  });
});

describe("graph options", () => {
  it("refuses a name that is not a string", async () => {
    await expectError(
      () => new Graph(State, { name: 42 as never }),
      TypeError,
      "new Graph(state, options): name must be a string, got number",
    );
  });

  it("refuses a blank name, a control character and more than 128 characters", async () => {
    for (const name of ["", "  ", "a\nb", "tab\there", "x".repeat(129)]) {
      await expectError(
        () => new Graph(State, { name }),
        TypeError,
        `new Graph(state, options): invalid name ${JSON.stringify(name)}; a graph name is 1 to 128 characters, not blank, without control characters`,
      );
    }
  });

  it("accepts a label with spaces and slashes as a graph name", () => {
    for (const name of ["chat on gpt-4o", "team/research", "x".repeat(128)]) {
      expect(new Graph(State, { name }).name).toBe(name);
    }
  });

  it("refuses a bad leaseTtlMs, middleware, nodeCache and tracer, naming each", async () => {
    await expectError(
      () => new Graph(State, { name: "g", leaseTtlMs: 0 }),
      TypeError,
      'Graph "g": leaseTtlMs must be a positive integer number of milliseconds up to 2147483647 (about 24.8 days), got a number (0)',
    );
    await expectError(
      () => new Graph(State, { name: "g", leaseTtlMs: "5s" as never }),
      TypeError,
      'Graph "g": leaseTtlMs must be a positive integer number of milliseconds up to 2147483647 (about 24.8 days), got a string (5s)',
    );
    // Beyond 2^31 − 1 ms a third of it overflows Node's timers (the lease was renewed every
    // millisecond) and PostgreSQL's bigint refuses 1e300.
    for (const [ttl, shown] of [
      [2_147_483_648, "2147483648"],
      [1e10, "10000000000"],
      [1e300, "1e+300"],
    ] as const) {
      await expectError(
        () => new Graph(State, { name: "g", leaseTtlMs: ttl }),
        TypeError,
        `Graph "g": leaseTtlMs must be a positive integer number of milliseconds up to 2147483647 (about 24.8 days), got a number (${shown})`,
      );
    }
    expect(new Graph(State, { name: "g", leaseTtlMs: 2_147_483_647 }).leaseTtlMs).toBe(
      2_147_483_647,
    );
    await expectError(
      () => new Graph(State, { middleware: {} as never }),
      TypeError,
      'Graph "graph": middleware must be a list (an array), got an object',
    );
    await expectError(
      () => new Graph(State, { nodeCache: { get: () => null } as never }),
      TypeError,
      'Graph "graph": nodeCache must be a NodeCache (MemoryNodeCache, StoreNodeCache or your own with get and set), got an object',
    );
    await expectError(
      () => new Graph(State, { tracer: "otel" as never }),
      TypeError,
      'Graph "graph": tracer must be an OpenTelemetry Tracer or true/false, got a string (otel)',
    );
  });

  it("keeps accepting valid options", () => {
    const g = new Graph(State, {
      name: "my-graph.v2",
      leaseTtlMs: 5000,
      middleware: [],
      tracer: false,
    });
    expect(g.name).toBe("my-graph.v2");
    expect(g.leaseTtlMs).toBe(5000);
  });
});
