/**
 * `GET /api/tools`: the tools the graph's model nodes offer their models (`modelNode`, and so
 * `buildReactAgent`), as `{ tools: [{ name, description, inputSchema }] }` with each tool's
 * JSON schema; one entry per name, in node order. The studio builds the approval form of a
 * tool call from its tool's schema. A graph without model nodes lists none.
 *
 * @module
 */
import type { Hono } from "hono";
import { onlyQuery } from "./request.js";
import type { ServedGraph } from "./types.js";

/** A tool as `GET /api/tools` lists it. */
export interface ToolView {
  name: string;
  description: string;
  /** JSON schema of its arguments. */
  inputSchema: Record<string, unknown>;
}

function isToolView(v: unknown): v is ToolView {
  const t = v as Partial<ToolView> | null;
  return (
    typeof t === "object" &&
    t !== null &&
    typeof t.name === "string" &&
    typeof t.description === "string" &&
    typeof t.inputSchema === "object" &&
    t.inputSchema !== null
  );
}

/** The tools of the graph's model nodes (their `toolDefinitions`), one per name. */
export function toolsOf(graph: ServedGraph): ToolView[] {
  const byName = new Map<string, ToolView>();
  for (const { node } of graph.compiled.nodes.values()) {
    const defs = (node as { toolDefinitions?: unknown }).toolDefinitions;
    if (!Array.isArray(defs)) continue;
    for (const d of defs) {
      if (isToolView(d) && !byName.has(d.name)) {
        byName.set(d.name, {
          name: d.name,
          description: d.description,
          inputSchema: d.inputSchema,
        });
      }
    }
  }
  return [...byName.values()];
}

/** Add `GET /api/tools` to `app`. */
export function addToolsRoute(app: Hono, graph: ServedGraph): void {
  const tools = toolsOf(graph);
  app.get("/api/tools", onlyQuery(), (c) => c.json({ tools }));
}
