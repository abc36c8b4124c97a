import { describe, expect, it } from "vitest";
import { runExample } from "./run-example.js";

describe("issue 6 examples print what their docs say", () => {
  it("examples/workspace/file-tools.ts (docs/workspace.md)", async () => {
    expect(await runExample("examples/workspace/file-tools.ts")).toBe(
      [
        'write_file {"result":{"path":"notes/plan.md","chars":22}}',
        'edit_file {"result":{"path":"notes/plan.md","replacements":1}}',
        'list_files {"result":["notes/plan.md"]}',
        'read_file Tool error: WorkspaceError: Workspace readFile refused path "../secret.txt": it contains a ".." segment, which leads out',
        "The plan is saved in notes/plan.md.",
        '"- call the shop\\n- pay the invoice\\n"',
        "..: parent-segment",
        "absolute: absolute-path",
        "link out: outside-root",
        "NUL: nul-byte",
        "long name: name-too-long",
        "",
      ].join("\n"),
    );
  });

  it("examples/middleware/todo-trim-limit.ts (docs/middleware.md)", async () => {
    expect(await runExample("examples/middleware/todo-trim-limit.ts")).toBe(
      [
        "Your order A-1001 has shipped.",
        "the third model call saw:",
        "  system: You answer questions about orders.",
        "  system: Plan with write_todos.",
        "Current todo list:",
        "1. [completed] Find the order",
        "2. [in_progress] Reply",
        "  ai: (tool calls)",
        "  tool: update_todo",
        "  tool: update_todo",
        'todos: [{"id":1,"content":"Find the order","status":"completed"},{"id":2,"content":"Reply","status":"in_progress"}]',
        "You are welcome.",
        "sent 4 messages; the thread holds 9",
        'ModelCallLimitError: at most 3 calls, refused in "think"',
        "7 model calls in all",
        "",
      ].join("\n"),
    );
  });

  it("examples/specs/spec-and-mermaid.ts (docs/specs-and-diagrams.md)", async () => {
    expect(await runExample("examples/specs/spec-and-mermaid.ts")).toBe(
      [
        '{"version":1,"name":"support","state":{"fields":[{"name":"text","kind":"value","schema":{"default":"","type":"string"}},{"name":"priority","kind":"value","schema":{"default":null,"anyOf":[{"type":"string","enum":["low","high"]},{"type":"null"}]}},{"name":"log","kind":"reducer","schema":{"default":[],"type":"array","items":{"type":"string"}}}]},"nodes":[{"name":"triage","ref":"./nodes.js#triage","timeoutMs":2000,"goto":null},{"name":"escalate","ref":"./nodes.js#escalate","timeoutMs":null,"goto":["__end__"]},{"name":"reply","ref":"./nodes.js#reply","timeoutMs":null,"goto":null}],"edges":[{"from":"__start__","to":["triage"]},{"from":"triage","when":{"ref":"./nodes.js#isUrgent"},"target":["escalate"],"otherwise":["reply"]},{"from":"reply","to":["__end__"]}]}',
        "flowchart TD",
        "  __start__([START])",
        '  n0["triage"]',
        '  n1["escalate"]',
        '  n2["reply"]',
        "  __end__([END])",
        "  __start__ --> n0",
        "  n0 -.->|isUrgent| n1",
        "  n0 -.->|not isUrgent| n2",
        "  n2 --> __end__",
        "  n1 -.->|goto| __end__",
        "same spec: true",
        "high [ 'escalated' ]",
        "",
      ].join("\n"),
    );
  });
});
