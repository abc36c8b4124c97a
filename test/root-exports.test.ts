/**
 * src/index.ts re-exports each folder's index.ts (dist/ is bundled, so the number of source
 * modules costs `import("nodestep")` nothing). So that it cannot drift from them: every export
 * of a folder's index is an export of the root, the same value.
 */
import { expect, it } from "vitest";
import * as agents from "../src/agents/index.js";
import * as chat from "../src/chat/index.js";
import * as graph from "../src/graph/index.js";
import * as root from "../src/index.js";
import * as memory from "../src/memory/index.js";
import * as middleware from "../src/middleware/index.js";
import * as state from "../src/state/index.js";
import * as stores from "../src/stores/index.js";
import * as tools from "../src/tools/index.js";
import * as workspace from "../src/workspace/index.js";

const folders = { agents, graph, memory, middleware, state, stores, tools, workspace };

it("exports everything each folder's index exports, the same values", () => {
  const rootExports = root as Record<string, unknown>;
  for (const [name, folder] of Object.entries(folders)) {
    const missing = Object.entries(folder)
      .filter(([k, v]) => rootExports[k] !== v)
      .map(([k]) => `${name}/${k}`);
    expect(missing).toEqual([]);
    expect(Object.keys(folder).length).toBeGreaterThan(0);
  }
});

it("exports the chat values it names, from nodestep/chat's modules", () => {
  for (const k of [
    "AIMessage",
    "HumanMessage",
    "SystemMessage",
    "ToolMessage",
    "textOf",
    "ScriptedChat",
    "ToolCall",
  ]) {
    expect([k, (root as Record<string, unknown>)[k]]).toEqual([
      k,
      (chat as Record<string, unknown>)[k],
    ]);
  }
});
