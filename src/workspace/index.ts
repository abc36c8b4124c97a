/**
 * Workspace: files the tools of a run may read and write (`ctx.workspace`), kept in memory
 * (`MemoryWorkspace`) or in a directory confined to its root (`DirectoryWorkspace`), and the
 * ready file tools (`workspaceTools()`).
 *
 * @module
 */
export { DirectoryWorkspace } from "./directory.js";
export { MemoryWorkspace } from "./memory.js";
export { MAX_NAME_BYTES, MAX_PATH_BYTES, normalizePath } from "./paths.js";
export { type WorkspaceToolsOptions, workspaceOf, workspaceTools } from "./tools.js";
export { isWorkspace, type Workspace } from "./types.js";
