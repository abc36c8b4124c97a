/**
 * The `Workspace` contract: files the tools of a run may read and write.
 *
 * @module
 */

/**
 * Files the tools of a run may read and write, reached as `ctx.workspace`.
 *
 * Paths are relative to the workspace root, with `/` separators (`"notes/todo.md"`); `""`
 * names the root in {@link Workspace.list}. Empty and `.` segments are ignored
 * (`"./a//b"` is `"a/b"`). Refused with a `WorkspaceError` (its `reason` in brackets):
 * absolute paths (`"absolute-path"`), `..` segments (`"parent-segment"`), NUL bytes
 * (`"nul-byte"`), backslashes and empty file paths (`"invalid-path"`), a segment over 255 bytes
 * (`"name-too-long"`) and a path over 4096 bytes (`"path-too-long"`). Text is UTF-8.
 *
 * Implementations: `MemoryWorkspace` (a map in memory) and `DirectoryWorkspace(root)` (a
 * directory on disk, confined to it).
 *
 * @example
 * ```ts
 * const ws: Workspace = new MemoryWorkspace();
 * await ws.writeFile("notes/plan.md", "1. read\n");
 * await ws.list(""); // ["notes/plan.md"]
 * ```
 */
export interface Workspace {
  /**
   * The text of a file.
   * @throws WorkspaceError `"not-found"`, `"is-a-directory"`, `"not-a-file"`, a refused path, or
   *   (on disk) `"outside-root"`.
   */
  readFile(path: string): Promise<string>;
  /**
   * Create or replace a file with `text`; missing parent directories are created.
   * @throws WorkspaceError `"is-a-directory"`, `"not-a-directory"` (a parent is a file), a
   *   refused path, or (on disk) `"outside-root"` and `"broken-link"`.
   */
  writeFile(path: string, text: string): Promise<void>;
  /**
   * The files under `dir` (default the root), recursively: paths relative to the root,
   * sorted by code unit. Directories are not listed by themselves.
   * @throws WorkspaceError `"not-found"`, `"not-a-directory"`, a refused path, or (on disk)
   *   `"outside-root"`.
   */
  list(dir?: string): Promise<string[]>;
  /**
   * Delete a file (a symbolic link is removed, never what it points to).
   * @throws WorkspaceError `"not-found"`, `"is-a-directory"`, a refused path, or (on disk)
   *   `"outside-root"`.
   */
  delete(path: string): Promise<void>;
}

/**
 * Whether a value has the four methods of a {@link Workspace}.
 * @example isWorkspace(new MemoryWorkspace()) // true
 */
export function isWorkspace(value: unknown): value is Workspace {
  if (typeof value !== "object" || value === null) return false;
  const w = value as Record<string, unknown>;
  return (
    typeof w.readFile === "function" &&
    typeof w.writeFile === "function" &&
    typeof w.list === "function" &&
    typeof w.delete === "function"
  );
}
