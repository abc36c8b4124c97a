import { describe, expect, it } from "vitest";
import { expectError } from "../../test/helpers.js";
import { buildReactAgent, runAgent } from "../agents/react-agent.js";
import { ScriptedChat } from "../chat/scripted-chat.js";
import { GraphConfigError, ValueError, WorkspaceError } from "../errors/index.js";
import { callTool } from "../tools/call-tool.js";
import { ToolContext } from "../tools/tool-context.js";
import { MemoryWorkspace } from "./memory.js";
import { workspaceTools } from "./tools.js";

const [readFile, writeFile, listFiles, editFile] = workspaceTools() as [
  ReturnType<typeof workspaceTools>[number],
  ReturnType<typeof workspaceTools>[number],
  ReturnType<typeof workspaceTools>[number],
  ReturnType<typeof workspaceTools>[number],
];

function ctxWith(ws: MemoryWorkspace) {
  return ToolContext.empty({ workspace: ws });
}

describe("workspaceTools", () => {
  it("gives read_file, write_file, list_files and edit_file; readOnly gives read_file and list_files", () => {
    expect(workspaceTools().map((t) => t.name)).toEqual([
      "read_file",
      "write_file",
      "list_files",
      "edit_file",
    ]);
    expect(workspaceTools({ readOnly: true }).map((t) => t.name)).toEqual([
      "read_file",
      "list_files",
    ]);
    expect(editFile.inputSchema()).toEqual({
      type: "object",
      properties: {
        path: {
          type: "string",
          description:
            "File path relative to the workspace root, with / separators, such as notes/plan.md",
        },
        oldText: { type: "string", description: "The exact text to replace, whitespace included" },
        newText: { type: "string", description: "The text to put in its place" },
        replaceAll: {
          type: "boolean",
          default: false,
          description: "Replace every occurrence instead of requiring exactly one",
        },
      },
      required: ["path", "oldText", "newText"],
      additionalProperties: false,
      title: "EditFileInput",
    });
  });

  it("writes, reads and lists through ctx.workspace", async () => {
    const ws = new MemoryWorkspace({ "a.md": "A" });
    const ctx = ctxWith(ws);
    expect(
      (await callTool(writeFile, { path: "./notes//plan.md", text: "1. read" }, ctx)).value,
    ).toEqual({
      path: "notes/plan.md",
      chars: 7,
    });
    expect((await callTool(readFile, { path: "notes/plan.md" }, ctx)).value).toBe("1. read");
    expect((await callTool(listFiles, {}, ctx)).value).toEqual(["a.md", "notes/plan.md"]);
    expect((await callTool(listFiles, { dir: "notes" }, ctx)).value).toEqual(["notes/plan.md"]);
  });

  it("edit_file replaces exactly one occurrence, or all with replaceAll", async () => {
    const ws = new MemoryWorkspace({ "t.md": "a b a c" });
    const ctx = ctxWith(ws);
    expect(
      (await callTool(editFile, { path: "t.md", oldText: "b", newText: "B" }, ctx)).value,
    ).toEqual({
      path: "t.md",
      replacements: 1,
    });
    expect(await ws.readFile("t.md")).toBe("a B a c");
    expect(
      (
        await callTool(
          editFile,
          { path: "t.md", oldText: "a", newText: "x", replaceAll: true },
          ctx,
        )
      ).value,
    ).toEqual({ path: "t.md", replacements: 2 });
    expect(await ws.readFile("t.md")).toBe("x B x c");
  });

  it("edit_file refuses text that is not found, found twice, or empty, and changes nothing", async () => {
    const ws = new MemoryWorkspace({ "t.md": "a b a" });
    const ctx = ctxWith(ws);
    await expectError(
      () => callTool(editFile, { path: "t.md", oldText: "zzz", newText: "y" }, ctx),
      ValueError,
      'edit_file "t.md": oldText was not found; read the file and copy the exact text, whitespace included',
    );
    await expectError(
      () => callTool(editFile, { path: "t.md", oldText: "a", newText: "y" }, ctx),
      ValueError,
      'edit_file "t.md": oldText occurs 2 times; include more surrounding text to pick one, or pass replaceAll: true',
    );
    await expectError(
      () => callTool(editFile, { path: "t.md", oldText: "", newText: "y" }, ctx),
      ValueError,
      'edit_file "t.md": oldText is empty; give the exact text to replace',
    );
    expect(await ws.readFile("t.md")).toBe("a b a");
  });

  it("passes workspace errors through", async () => {
    const ctx = ctxWith(new MemoryWorkspace());
    const e = await expectError(
      () => callTool(readFile, { path: "../x" }, ctx),
      WorkspaceError,
      'Workspace readFile refused path "../x": it contains a ".." segment, which leads out',
    );
    expect(e.reason).toBe("parent-segment");
  });

  it("says clearly when there is no workspace", async () => {
    await expectError(
      () => callTool(readFile, { path: "a.md" }),
      GraphConfigError,
      'Tool "read_file" needs a workspace, but it was called outside a graph without one; pass ToolContext.empty({ workspace })',
    );
    await expectError(
      () => callTool(listFiles, {}, ToolContext.empty({ workspace: { files: {} } })),
      GraphConfigError,
      'Tool "list_files" needs a workspace, but ctx.workspace is not a Workspace (readFile, writeFile, list, delete); it was called outside a graph without one; pass ToolContext.empty({ workspace })',
    );
  });

  it("reaches the agent's workspace in a graph, and fails the run without one", async () => {
    const script = () =>
      new ScriptedChat([
        {
          toolCalls: [
            { id: "c1", name: "write_file", arguments: { path: "plan.md", text: "- ship" } },
          ],
        },
        "Saved.",
      ]);
    const ws = new MemoryWorkspace();
    const chat = script();
    const agent = buildReactAgent(chat, { tools: workspaceTools(), workspace: ws });
    expect(await runAgent(agent, "Save the plan")).toBe("Saved.");
    expect(ws.toJSON()).toEqual({ "plan.md": "- ship" });
    expect(chat.requests[1]?.messages.at(-1)?.content).toBe(
      '{"result":{"path":"plan.md","chars":6}}',
    );
    const bare = buildReactAgent(script(), { tools: workspaceTools(), toolErrors: "return" });
    await expectError(
      () => runAgent(bare, "Save the plan"),
      GraphConfigError,
      'Tool "write_file" needs a workspace, but graph "agent" has none; pass new Graph(State, { workspace }) or buildReactAgent(chat, { tools, workspace })',
    );
  });
});
