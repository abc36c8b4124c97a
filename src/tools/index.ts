/**
 * Tools: `tool()`, `Tool`, `ToolContext`, `callTool`, `toolResultContent`.
 *
 * @module
 */
export { callTool, type ToolContent, toolContent, toolResultContent } from "./call-tool.js";
export {
  isTool,
  type NoArguments,
  TOOL_NAME_PATTERN,
  type ToolOptions,
  tool,
} from "./tool.js";
export {
  type EmptyToolContextOptions,
  emptyToolContext,
  type FromNodeContextOptions,
  ToolContext,
  toolContextFromNode,
} from "./tool-context.js";
export type { AnyTool, Tool, ToolCallResult, ToolFunction } from "./types.js";
