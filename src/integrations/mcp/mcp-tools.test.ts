import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { caught, expectError } from "../../../test/helpers.js";
import { SOURCE_LOADER } from "../../../test/source-loader.js";
import { buildReactAgent, runAgent } from "../../agents/react-agent.js";
import { ScriptedChat } from "../../chat/scripted-chat.js";
import {
  NodestepError,
  ToolExecutionError,
  ValidationError,
  ValueError,
} from "../../errors/index.js";
import { callTool } from "../../tools/call-tool.js";
import { ToolContext } from "../../tools/tool-context.js";
import type { AnyTool } from "../../tools/types.js";
import { connectMcpTools, type McpToolset, mcpToolName, toolFromMcp } from "./mcp-tools.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const fixture = fileURLToPath(new URL("./mcp-server.fixture.ts", import.meta.url));
const nodeArgs = [...SOURCE_LOADER, fixture];

function byName(set: McpToolset, name: string): AnyTool {
  const t = set.tools.find((x) => x.name === name);
  if (!t) throw new Error(`no tool ${name}`);
  return t;
}

describe("connectMcpTools over stdio (a real server process)", () => {
  let mcp: McpToolset;
  beforeAll(async () => {
    mcp = await connectMcpTools({
      command: process.execPath,
      args: [...nodeArgs, "--stdio"],
      cwd: root,
    });
  }, 30_000);
  afterAll(async () => {
    await mcp.close();
    await mcp.close();
  });

  it("lists the server's tools, renaming what models would refuse", () => {
    expect(mcp.serverName).toBe("fixture");
    expect(mcp.tools.map((t) => t.name)).toEqual([
      "add",
      "echo",
      "fail",
      "slow",
      "whoami",
      "math_mul",
    ]);
    expect(mcp.names).toEqual({ math_mul: "math.mul" });
    expect(byName(mcp, "echo").definition()).toEqual({
      name: "echo",
      description: "Repeat a text.",
      inputSchema: {
        type: "object",
        properties: {
          text: { type: "string" },
          times: { type: "integer", minimum: 1, maximum: 3 },
        },
        required: ["text"],
      },
    });
    expect(byName(mcp, "add").outputSchema()).toEqual({
      type: "object",
      properties: { sum: { type: "number" } },
      required: ["sum"],
      additionalProperties: false,
    });
  });

  it("calls tools: structured content, joined text, a renamed tool", async () => {
    expect((await callTool(byName(mcp, "add"), { a: 2, b: 3 })).value).toEqual({ sum: 5 });
    expect((await callTool(byName(mcp, "echo"), { text: "hi", times: 2 })).value).toBe("hi\nhi");
    expect((await callTool(byName(mcp, "math_mul"), { a: 2, b: 3 })).value).toBe("6");
    expect((await callTool(byName(mcp, "whoami"), {})).value).toBe("key=none");
  });

  it("validates arguments against the tool's JSON schema before calling the server", async () => {
    const e = await expectError(
      () => callTool(byName(mcp, "echo"), { text: "hi", times: 9 }),
      ValidationError,
      'Invalid arguments for tool "echo": times: Too big: expected number to be <=3',
    );
    expect(e.issues).toEqual([{ path: ["times"], message: "Too big: expected number to be <=3" }]);
    await expectError(
      () => callTool(byName(mcp, "add"), { a: "2", b: 3 }),
      ValidationError,
      'Invalid arguments for tool "add": a: Invalid input: expected number, received string',
    );
  });

  it("turns an error result into ToolExecutionError", async () => {
    const e = await expectError(
      () => callTool(byName(mcp, "fail"), {}, ToolContext.empty({ toolCallId: "c7" })),
      ToolExecutionError,
      'MCP tool "fail" failed: it broke',
    );
    expect(e.tool).toBe("fail");
    expect(e.toolCallId).toBe("c7");
  });

  it("serves an agent", async () => {
    const chat = new ScriptedChat([
      { toolCalls: [{ id: "c1", name: "add", arguments: { a: 20, b: 22 } }] },
      "42",
    ]);
    const agent = buildReactAgent(chat, { tools: mcp.tools });
    expect(await runAgent(agent, "20 + 22?")).toBe("42");
    expect(chat.requests[0]?.tools.map((t) => t.name)).toEqual(mcp.tools.map((t) => t.name));
    expect(chat.requests[1]?.messages.at(-1)?.content).toBe('{"result":{"sum":42}}');
  });

  it("keeps only the included tools, with a prefix, and times calls out", async () => {
    const few = await connectMcpTools(
      { command: process.execPath, args: [...nodeArgs, "--stdio"], cwd: root },
      { prefix: "fx_", include: ["slow", "math.mul"], timeoutMs: 200 },
    );
    try {
      expect(few.tools.map((t) => t.name)).toEqual(["fx_slow", "fx_math_mul"]);
      expect(few.names).toEqual({ fx_slow: "slow", fx_math_mul: "math.mul" });
      const e = await expectError(
        () => callTool(byName(few, "fx_slow"), { ms: 1500 }),
        ToolExecutionError,
        'MCP tool "slow" could not be called: MCP error -32001: Request timed out',
      );
      expect(e.tool).toBe("fx_slow");
    } finally {
      await few.close();
    }
  }, 30_000);
});

describe("connectMcpTools over streamable HTTP (a real server process on 127.0.0.1:0)", () => {
  let child: ChildProcess;
  let url: string;
  beforeAll(async () => {
    child = spawn(process.execPath, [...nodeArgs, "--http"], {
      cwd: root,
      stdio: ["ignore", "pipe", "inherit"],
    });
    url = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout?.on("data", (d: Buffer) => {
        out += d.toString();
        const m = /PORT (\d+)/.exec(out);
        if (m) resolve(`http://127.0.0.1:${m[1]}/mcp`);
      });
      child.on("exit", (code) => reject(new Error(`server exited with ${code}`)));
    });
  }, 30_000);
  afterAll(() => {
    child.kill();
  });

  it("lists and calls tools, sending the given headers", async () => {
    const mcp = await connectMcpTools({ url, headers: { "x-api-key": "k-123" } });
    try {
      expect(mcp.tools.map((t) => t.name)).toEqual([
        "add",
        "echo",
        "fail",
        "slow",
        "whoami",
        "math_mul",
      ]);
      expect((await callTool(byName(mcp, "add"), { a: 1, b: 2 })).value).toEqual({ sum: 3 });
      expect((await callTool(byName(mcp, "whoami"), {})).value).toBe("key=k-123");
      await expectError(
        () => callTool(byName(mcp, "fail"), {}),
        ToolExecutionError,
        'MCP tool "fail" failed: it broke',
      );
    } finally {
      await mcp.close();
    }
  });

  it("says which server could not be reached", async () => {
    const e = await caught(() => connectMcpTools({ url: "http://127.0.0.1:9/mcp" }));
    expect(e).toBeInstanceOf(NodestepError);
    expect(
      e.message.startsWith("Could not connect to the MCP server (http://127.0.0.1:9/mcp): "),
    ).toBe(true);
    expect(e.cause).toBeInstanceOf(Error);
  });
});

describe("toolFromMcp", () => {
  const listed = (inputSchema: Record<string, unknown>) => ({ name: "t", inputSchema });
  const noClient = {
    callTool: () => {
      throw new Error("not called");
    },
  };

  it("refuses schemas that are not object schemas zod can check", () => {
    expect(() => toolFromMcp(noClient, listed({ type: "string" }), "t", null)).toThrow(
      new ValueError('MCP tool "t": its input schema is not an object schema (type "string")'),
    );
    expect(() =>
      toolFromMcp(
        noClient,
        listed({ type: "object", properties: { a: { type: "strin" } } }),
        "t",
        null,
      ),
    ).toThrow(
      new ValueError('MCP tool "t": its input schema cannot be checked: Unsupported type: strin'),
    );
  });

  it("returns content parts as they are when they are not all text, and keeps unknown arguments", async () => {
    const seen: unknown[] = [];
    const client = {
      callTool: async (params: unknown) => {
        seen.push(params);
        return {
          content: [
            { type: "text", text: "a chart" },
            { type: "image", data: "AAAA", mimeType: "image/png" },
          ],
        };
      },
    } as unknown as Parameters<typeof toolFromMcp>[0];
    const t = toolFromMcp(
      client,
      {
        name: "chart",
        title: "Chart",
        inputSchema: { type: "object", properties: { q: { type: "string" } } },
      },
      "chart",
      null,
    );
    expect(t.description).toBe("Chart");
    expect((await callTool(t, { q: "x", extra: 1 })).value).toEqual([
      { type: "text", text: "a chart" },
      { type: "image", data: "AAAA", mimeType: "image/png" },
    ]);
    expect(seen).toEqual([{ name: "chart", arguments: { q: "x", extra: 1 } }]);
  });

  it("names tools for models", () => {
    expect(mcpToolName("", "math.mul")).toBe("math_mul");
    expect(mcpToolName("gh_", "repos/list issues")).toBe("gh_repos_list_issues");
    expect(mcpToolName("", "x".repeat(70)).length).toBe(64);
  });
});

it("importing nodestep/mcp loads no SDK; connecting without it says what to install", async () => {
  const dir = mkdtempSync(join(tmpdir(), "nodestep-mcp-lazy-"));
  writeFileSync(
    join(dir, "hooks.mjs"),
    `export async function resolve(specifier, context, next) {
  if (/^@modelcontextprotocol\\/sdk(\\/|$)/.test(specifier)) {
    const error = new Error("Cannot find package '" + specifier + "'");
    error.code = "ERR_MODULE_NOT_FOUND";
    throw error;
  }
  return next(specifier, context);
}
`,
  );
  writeFileSync(
    join(dir, "register.mjs"),
    `import { register } from "node:module";\nregister(${JSON.stringify(new URL(`file://${join(dir, "hooks.mjs")}`).href)});\n`,
  );
  const script = `
const { connectMcpTools } = await import("nodestep/mcp");
try { await connectMcpTools({ url: "http://127.0.0.1:9/mcp" }); } catch (e) { console.log(e.name, e.message); }
`;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--import", "tsx", "--import", join(dir, "register.mjs"), "--input-type=module", "-e", script],
    { cwd: root, timeout: 60_000 },
  );
  expect(stdout).toBe(
    'NodestepError connectMcpTools needs the "@modelcontextprotocol/sdk" package, which is not installed: run `npm install @modelcontextprotocol/sdk`\n',
  );
}, 60_000);
