/**
 * Tools from a Model Context Protocol server as nodestep tools, through the
 * `@modelcontextprotocol/sdk` client (stdio and streamable HTTP).
 *
 * @module
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { z } from "zod";
import type { ToolDefinition } from "../../chat/types.js";
import { NodestepError, ToolExecutionError, ValueError } from "../../errors/index.js";
import type { JsonObject, JsonValue } from "../../json/index.js";
import { TOOL_NAME_PATTERN } from "../../tools/tool.js";
import type { AnyTool, ToolContext } from "../../tools/types.js";

/** An MCP server started as a child process, spoken to over its stdin and stdout. */
export interface McpStdioServer {
  /** The program to run, such as `"npx"` or `process.execPath`. */
  command: string;
  /** Its arguments; default none. */
  args?: readonly string[];
  /** Its environment; default the SDK's safe subset of this process's environment (`PATH`, `HOME`, …). */
  env?: Readonly<Record<string, string>>;
  /** Its working directory; default this process's. */
  cwd?: string;
  /** What to do with its stderr; default `"inherit"`. */
  stderr?: "inherit" | "ignore" | "pipe";
}

/** An MCP server reached over streamable HTTP. */
export interface McpHttpServer {
  /** The server's MCP endpoint, such as `"http://127.0.0.1:3000/mcp"`. */
  url: string | URL;
  /** Headers sent with every request (an API key, …); default none. */
  headers?: Readonly<Record<string, string>>;
}

/** Where the MCP server is: a command to start (stdio) or a URL (streamable HTTP). */
export type McpServerConfig = McpStdioServer | McpHttpServer;

/** Options of {@link connectMcpTools}. */
export interface McpToolsOptions {
  /** Put before every tool name, such as `"github_"`; default `""`. */
  prefix?: string;
  /** Keep only these server tool names (before prefix and renaming); default all. */
  include?: readonly string[];
  /** Milliseconds a tool call may take before it fails; default the SDK's (60,000). */
  timeoutMs?: number;
  /** The name this client gives the server; default `"nodestep"`. */
  clientName?: string;
}

/** The tools of a connected MCP server. Close it when done (it ends a stdio server's process). */
export interface McpToolset {
  /** The server's tools as nodestep tools, in the server's order. */
  readonly tools: AnyTool[];
  /** Nodestep tool name → the server's tool name, for the tools that were renamed or prefixed. */
  readonly names: Readonly<Record<string, string>>;
  /** The name the server gives itself, or `null`. */
  readonly serverName: string | null;
  /** The SDK client, for what nodestep does not wrap (resources, prompts). */
  readonly client: Client;
  /** Close the connection; idempotent. */
  close(): Promise<void>;
}

/** A tool as the server lists it (the fields nodestep reads). */
export interface ListedTool {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown> | undefined;
}

const SDK = "@modelcontextprotocol/sdk";

async function load<T>(what: string, importer: () => Promise<T>): Promise<T> {
  try {
    return await importer();
  } catch (e) {
    const code = (e as { code?: unknown } | null)?.code;
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") {
      throw new NodestepError(
        `${what} needs the "${SDK}" package, which is not installed: run \`npm install ${SDK}\``,
        { cause: e },
      );
    }
    throw e;
  }
}

function isHttp(server: McpServerConfig): server is McpHttpServer {
  return typeof server === "object" && server !== null && "url" in server;
}

/** A tool name the models accept: the prefix, invalid characters as `_`, at most 64 characters. */
export function mcpToolName(prefix: string, name: string): string {
  return `${prefix}${name}`.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64);
}

/**
 * Connect to an MCP server and turn its tools into nodestep tools.
 *
 * Each server tool becomes a tool (a plain object like those of `tool()`) that:
 * - shows the model the server's own input JSON schema (without `$schema`), its description
 *   (else its title, else its name), and a name made of `prefix` + the server's name with
 *   characters outside `[a-zA-Z0-9_-]` replaced by `_`, cut to 64 (see `names`);
 * - validates the arguments against that JSON schema before calling the server: the schema
 *   is turned into a zod schema with `z.fromJSONSchema` when connecting, so wrong arguments
 *   are a `ValidationError` from `callTool` and the server is not called;
 * - returns the call's `structuredContent` when the server sends one (the SDK checks it
 *   against the tool's output schema), else the text when every content part is text (parts
 *   joined by `"\n"`), else the content parts as they are (JSON);
 * - throws `ToolExecutionError` when the server answers with `isError` (its text is the
 *   message) or the call fails (time-out, closed connection; `cause` is the SDK's error);
 * - passes the run's `AbortSignal`, so cancelling the run cancels the call.
 *
 * The SDK is loaded when this is first called; it is an optional peer dependency.
 *
 * @param server - `{ command, args, env, cwd, stderr }` for stdio, `{ url, headers }` for
 *   streamable HTTP.
 * @param options - `{ prefix, include, timeoutMs, clientName }`.
 * @returns the toolset; `close()` it when done.
 * @throws NodestepError when the SDK is not installed or the server cannot be reached (with
 *   the SDK's error as `cause`); ValueError when a tool's input schema is not a JSON schema of
 *   an object that zod can check, or two tools end up with one name; TypeError for a bad
 *   `server`. The connection is closed before any of these is thrown.
 * @example
 * ```ts
 * const mcp = await connectMcpTools({ command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] });
 * try {
 *   const agent = buildReactAgent(chat, { tools: mcp.tools });
 *   console.log(await runAgent(agent, "Add 2 and 3"));
 * } finally {
 *   await mcp.close();
 * }
 * ```
 */
export async function connectMcpTools(
  server: McpServerConfig,
  options: McpToolsOptions = {},
): Promise<McpToolset> {
  if (typeof server !== "object" || server === null) {
    throw new TypeError("connectMcpTools(server): server must be { command, args } or { url }");
  }
  if (!isHttp(server) && typeof (server as { command?: unknown }).command !== "string") {
    throw new TypeError(
      "connectMcpTools(server): give { command, args } for a stdio server or { url } for an HTTP one",
    );
  }
  const { Client } = await load(
    "connectMcpTools",
    () => import("@modelcontextprotocol/sdk/client/index.js"),
  );
  const client = new Client({ name: options.clientName ?? "nodestep", version: "0.1.0" });
  let where: string;
  try {
    if (isHttp(server)) {
      const { StreamableHTTPClientTransport } = await load(
        "connectMcpTools",
        () => import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
      );
      const url = server.url instanceof URL ? server.url : new URL(server.url);
      where = url.href;
      await client.connect(
        new StreamableHTTPClientTransport(url, {
          ...(server.headers ? { requestInit: { headers: { ...server.headers } } } : {}),
        }),
      );
    } else {
      const { StdioClientTransport } = await load(
        "connectMcpTools",
        () => import("@modelcontextprotocol/sdk/client/stdio.js"),
      );
      where = [server.command, ...(server.args ?? [])].join(" ");
      await client.connect(
        new StdioClientTransport({
          command: server.command,
          args: [...(server.args ?? [])],
          ...(server.env ? { env: { ...server.env } } : {}),
          ...(server.cwd ? { cwd: server.cwd } : {}),
          stderr: server.stderr ?? "inherit",
        }),
      );
    }
  } catch (e) {
    await client.close().catch(() => {});
    if (e instanceof NodestepError) throw e;
    throw new NodestepError(
      `Could not connect to the MCP server (${describeServer(server)}): ${(e as Error)?.message ?? String(e)}`,
      { cause: e },
    );
  }
  try {
    const listed: ListedTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      listed.push(...(page.tools as ListedTool[]));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    const include = options.include ? new Set(options.include) : null;
    const names: Record<string, string> = {};
    const tools: AnyTool[] = [];
    const seen = new Map<string, string>();
    for (const t of listed) {
      if (include !== null && !include.has(t.name)) continue;
      const name = mcpToolName(options.prefix ?? "", t.name);
      const other = seen.get(name);
      if (other !== undefined) {
        throw new ValueError(
          `MCP server ${where}: tools "${other}" and "${t.name}" both become "${name}"; use include to pick one`,
        );
      }
      seen.set(name, t.name);
      if (name !== t.name) names[name] = t.name;
      tools.push(toolFromMcp(client, t, name, options.timeoutMs ?? null));
    }
    let closed = false;
    return {
      tools,
      names,
      serverName: client.getServerVersion()?.name ?? null,
      client,
      async close() {
        if (closed) return;
        closed = true;
        await client.close();
      },
    };
  } catch (e) {
    await client.close().catch(() => {});
    throw e;
  }
}

function describeServer(server: McpServerConfig): string {
  return isHttp(server) ? String(server.url) : [server.command, ...(server.args ?? [])].join(" ");
}

/**
 * One listed MCP tool as a nodestep tool (what {@link connectMcpTools} does for each tool).
 * Only `client.callTool` is used. Internal; exported for tests.
 * @throws ValueError for an input schema that is not an object schema zod can check.
 */
export function toolFromMcp(
  client: Pick<Client, "callTool">,
  listed: ListedTool,
  name: string,
  timeoutMs: number | null,
): AnyTool {
  const { $schema: _drop, ...schema } = listed.inputSchema as JsonObject;
  if (schema.type !== "object") {
    throw new ValueError(
      `MCP tool "${listed.name}": its input schema is not an object schema (type ${JSON.stringify(schema.type ?? null)})`,
    );
  }
  let input: z.ZodType;
  try {
    input = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (e) {
    throw new ValueError(
      `MCP tool "${listed.name}": its input schema cannot be checked: ${(e as Error).message}`,
      { cause: e },
    );
  }
  if (!TOOL_NAME_PATTERN.test(name)) {
    throw new ValueError(`MCP tool "${listed.name}": "${name}" is not a valid tool name`);
  }
  const description =
    [listed.description, listed.title, listed.name].find(
      (d): d is string => typeof d === "string" && d.trim() !== "",
    ) ?? listed.name;
  const inputJson = JSON.stringify(schema);
  const outputJson = JSON.stringify(stripSchema(listed.outputSchema) ?? {});
  const fn = async (args: unknown, ctx: ToolContext<unknown>): Promise<JsonValue> => {
    let result: Awaited<ReturnType<Client["callTool"]>>;
    try {
      result = await client.callTool(
        { name: listed.name, arguments: args as JsonObject },
        undefined,
        {
          signal: ctx.signal,
          ...(timeoutMs === null ? {} : { timeout: timeoutMs }),
        },
      );
    } catch (e) {
      if (ctx.signal.aborted) throw e;
      throw new ToolExecutionError(
        `MCP tool "${listed.name}" could not be called: ${(e as Error)?.message ?? String(e)}`,
        {
          tool: name,
          ...(ctx.toolCallId === null ? {} : { toolCallId: ctx.toolCallId }),
          cause: e,
        },
      );
    }
    const content = (Array.isArray(result.content) ? result.content : []) as JsonObject[];
    const texts = content.every((c) => c.type === "text")
      ? content.map((c) => String(c.text))
      : null;
    if (result.isError === true) {
      throw new ToolExecutionError(
        `MCP tool "${listed.name}" failed: ${texts?.join("\n") || JSON.stringify(content)}`,
        { tool: name, ...(ctx.toolCallId === null ? {} : { toolCallId: ctx.toolCallId }) },
      );
    }
    if (result.structuredContent !== undefined && result.structuredContent !== null) {
      return result.structuredContent as JsonObject;
    }
    return texts !== null ? texts.join("\n") : content;
  };
  return {
    kind: "tool",
    name,
    description,
    input: input as z.ZodType<unknown>,
    output: null,
    fn,
    inputSchema: () => JSON.parse(inputJson) as JsonObject,
    inputSchemaJson: () => inputJson,
    outputSchema: () => JSON.parse(outputJson) as JsonObject,
    outputSchemaJson: () => outputJson,
    supportsContext: () => true,
    definition: (): ToolDefinition => ({
      name,
      description,
      inputSchema: JSON.parse(inputJson) as JsonObject,
    }),
  };
}

function stripSchema(schema: Record<string, unknown> | undefined): JsonObject | null {
  if (schema === undefined) return null;
  const { $schema: _drop, ...rest } = schema as JsonObject;
  return rest;
}
