/**
 * A real MCP server for the tests, written with the same SDK: `--stdio` serves on stdin and
 * stdout; `--http` listens on 127.0.0.1 at a free port and prints `PORT <n>` on stdout.
 *
 * Tools: `add` (structured result), `echo`, `fail` (an error result), `slow`, `whoami` (reads
 * the `x-api-key` header over HTTP), `math.mul` (a name nodestep must rename).
 */
import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

function makeServer(): McpServer {
  const server = new McpServer({ name: "fixture", version: "1.0.0" });
  server.registerTool(
    "add",
    {
      description: "Add two numbers.",
      inputSchema: { a: z.number(), b: z.number() },
      outputSchema: { sum: z.number() },
    },
    async ({ a, b }) => ({
      content: [{ type: "text", text: String(a + b) }],
      structuredContent: { sum: a + b },
    }),
  );
  server.registerTool(
    "echo",
    {
      description: "Repeat a text.",
      inputSchema: { text: z.string(), times: z.number().int().min(1).max(3).optional() },
    },
    async ({ text, times }) => ({
      content: Array.from({ length: times ?? 1 }, () => ({ type: "text" as const, text })),
    }),
  );
  server.registerTool("fail", { description: "Always fails." }, async () => ({
    isError: true,
    content: [{ type: "text", text: "it broke" }],
  }));
  server.registerTool(
    "slow",
    { description: "Wait.", inputSchema: { ms: z.number() } },
    async ({ ms }) => {
      await new Promise((r) => setTimeout(r, ms));
      return { content: [{ type: "text", text: "done" }] };
    },
  );
  server.registerTool("whoami", { description: "Say which API key was sent." }, async (extra) => {
    const key = extra.requestInfo?.headers["x-api-key"];
    return { content: [{ type: "text", text: `key=${typeof key === "string" ? key : "none"}` }] };
  });
  server.registerTool(
    "math.mul",
    { description: "Multiply two numbers.", inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => ({ content: [{ type: "text", text: String(a * b) }] }),
  );
  return server;
}

if (process.argv.includes("--stdio")) {
  await makeServer().connect(new StdioServerTransport());
} else if (process.argv.includes("--http")) {
  const http = createServer(async (req, res) => {
    const server = makeServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  http.listen(0, "127.0.0.1", () => {
    const address = http.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    process.stdout.write(`PORT ${port}\n`);
  });
} else {
  process.stderr.write("usage: mcp-server.fixture.ts --stdio | --http\n");
  process.exit(2);
}
