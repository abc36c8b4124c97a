/**
 * Checking workspace paths before any file is touched.
 *
 * @module
 */
import { WorkspaceError } from "../errors/index.js";

/** Longest path accepted, in UTF-8 bytes (Linux `PATH_MAX`). */
export const MAX_PATH_BYTES = 4096;
/** Longest path segment (file or directory name) accepted, in UTF-8 bytes (`NAME_MAX`). */
export const MAX_NAME_BYTES = 255;

/** The path quoted for a message, cut to 80 characters. */
export function quotePath(path: string): string {
  const shown = path.length > 80 ? `${path.slice(0, 77)}...` : path;
  return JSON.stringify(shown);
}

/**
 * Check a workspace path and return its segments (empty and `.` segments dropped).
 *
 * @param path - the path as given.
 * @param op - the operation, for messages (`"readFile"`, …).
 * @param allowRoot - whether the root itself (`""`) is accepted, as by `list`.
 * @throws TypeError when `path` is not a string; WorkspaceError with reason `"nul-byte"`,
 *   `"path-too-long"`, `"absolute-path"`, `"invalid-path"`, `"parent-segment"` or
 *   `"name-too-long"` (checked in that order).
 * @example pathSegments("./notes//a.md", "readFile", false) // ["notes", "a.md"]
 */
export function pathSegments(path: unknown, op: string, allowRoot: boolean): string[] {
  if (typeof path !== "string") {
    throw new TypeError(
      `Workspace ${op}: path must be a string, got ${path === null ? "null" : typeof path}`,
    );
  }
  const refuse = (reason: WorkspaceError["reason"], why: string): never => {
    throw new WorkspaceError(`Workspace ${op} refused path ${quotePath(path)}: ${why}`, {
      path,
      reason,
    });
  };
  if (path.includes("\u0000")) refuse("nul-byte", "it contains a NUL byte");
  const bytes = Buffer.byteLength(path, "utf8");
  if (bytes > MAX_PATH_BYTES) {
    refuse("path-too-long", `it is ${bytes} bytes long; at most ${MAX_PATH_BYTES} are allowed`);
  }
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path)) {
    refuse("absolute-path", "paths are relative to the workspace root, with / separators");
  }
  if (path.includes("\\")) {
    refuse("invalid-path", "it contains a backslash; separate directories with /");
  }
  const segments = path.split("/").filter((s) => s !== "" && s !== ".");
  for (const s of segments) {
    if (s === "..") refuse("parent-segment", 'it contains a ".." segment, which leads out');
    const n = Buffer.byteLength(s, "utf8");
    if (n > MAX_NAME_BYTES) {
      refuse(
        "name-too-long",
        `the name ${quotePath(s)} is ${n} bytes long; at most ${MAX_NAME_BYTES} are allowed`,
      );
    }
  }
  if (segments.length === 0 && !allowRoot) refuse("invalid-path", "it names no file");
  return segments;
}

/**
 * A path in the form the workspace reports it: segments joined by `/`.
 * @throws as {@link pathSegments}.
 * @example normalizePath("./notes//a.md") // "notes/a.md"
 */
export function normalizePath(path: string): string {
  return pathSegments(path, "path", true).join("/");
}
