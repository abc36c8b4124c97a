// An agent keeps notes in a directory through the ready file tools, and the directory
// workspace refuses paths that lead out of its root.
// (Workspace names come from src/ until the root module exports them.)

import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  buildReactAgent,
  DirectoryWorkspace,
  HumanMessage,
  ScriptedChat,
  WorkspaceError,
  workspaceTools,
} from "nodestep";

const root = mkdtempSync(join(tmpdir(), "nodestep-example-"));
const workspace = new DirectoryWorkspace(root);

const chat = new ScriptedChat([
  {
    toolCalls: [
      {
        id: "c1",
        name: "write_file",
        arguments: { path: "notes/plan.md", text: "- call the shop\n- pay\n" },
      },
    ],
  },
  {
    toolCalls: [
      {
        id: "c2",
        name: "edit_file",
        arguments: { path: "notes/plan.md", oldText: "- pay", newText: "- pay the invoice" },
      },
      { id: "c3", name: "list_files", arguments: {} },
    ],
  },
  { toolCalls: [{ id: "c4", name: "read_file", arguments: { path: "../secret.txt" } }] },
  "The plan is saved in notes/plan.md.",
]);

const agent = buildReactAgent(chat, { tools: workspaceTools(), workspace, toolErrors: "return" });
const { state } = await agent.invoke({
  messages: [HumanMessage({ content: "Write down the plan." })],
});
for (const m of state.messages) if (m.type === "tool") console.log(m.name, m.content);
console.log(state.finalText);
console.log(JSON.stringify(await workspace.readFile("notes/plan.md")));

// Each refusal, one by one.
symlinkSync(tmpdir(), join(root, "out"));
const attempts: Array<[string, () => Promise<unknown>]> = [
  ["..", () => workspace.readFile("../etc/passwd")],
  ["absolute", () => workspace.readFile("/etc/passwd")],
  ["link out", () => workspace.writeFile("out/pwned.txt", "x")],
  ["NUL", () => workspace.writeFile("a\u0000b", "x")],
  ["long name", () => workspace.writeFile("n".repeat(256), "x")],
];
for (const [what, attempt] of attempts) {
  try {
    await attempt();
  } catch (e) {
    if (e instanceof WorkspaceError) console.log(`${what}: ${e.reason}`);
  }
}
rmSync(root, { recursive: true, force: true });
