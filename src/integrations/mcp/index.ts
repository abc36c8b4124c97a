/**
 * `nodestep/mcp`: tools from a Model Context Protocol server as nodestep tools
 * ({@link connectMcpTools}), over stdio or streamable HTTP. Needs the optional peer dependency
 * `@modelcontextprotocol/sdk` (`npm install @modelcontextprotocol/sdk`), loaded only when
 * `connectMcpTools` is first called.
 *
 * @module
 */
export {
  connectMcpTools,
  type McpHttpServer,
  type McpServerConfig,
  type McpStdioServer,
  type McpToolset,
  type McpToolsOptions,
  mcpToolName,
} from "./mcp-tools.js";
