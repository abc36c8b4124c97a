/**
 * `workspaceTools()`: ready file tools (read, write, list, edit) over `ctx.workspace`.
 *
 * @module
 */
import { GraphConfigError, ValueError } from "../errors/index.js";
import { memo } from "../lazy.js";
import { tool } from "../tools/tool.js";
import type { AnyTool, ToolContext } from "../tools/types.js";
import { zod } from "../zod-runtime.js";
import { normalizePath, quotePath } from "./paths.js";
import { isWorkspace, type Workspace } from "./types.js";

/** Options of {@link workspaceTools}. */
export interface WorkspaceToolsOptions {
  /** Give only `read_file` and `list_files`; default `false`. */
  readOnly?: boolean;
}

/**
 * The workspace of the run calling a tool.
 *
 * @throws GraphConfigError when the run has no workspace (or something else than one); it
 *   fails the run whatever the tool error policy, as a configuration mistake should.
 * @example const ws = workspaceOf(ctx, "read_file");
 */
export function workspaceOf(ctx: ToolContext, toolName: string): Workspace {
  const ws = ctx.workspace;
  if (isWorkspace(ws)) return ws;
  const where =
    ctx.graphName === null
      ? "it was called outside a graph without one; pass ToolContext.empty({ workspace })"
      : `graph "${ctx.graphName}" has none; pass new Graph(State, { workspace }) or buildReactAgent(chat, { tools, workspace })`;
  const what =
    ws === null || ws === undefined
      ? where
      : `ctx.workspace is not a Workspace (readFile, writeFile, list, delete); ${where}`;
  throw new GraphConfigError(`Tool "${toolName}" needs a workspace, but ${what}`, {
    ...(ctx.graphName === null ? {} : { graph: ctx.graphName }),
    ...(ctx.node === null ? {} : { node: ctx.node }),
  });
}

/** The four tools, made on the first call (no zod at import: see zod-runtime.ts). */
const fileTools = memo(() => {
  const z = zod();
  const pathArg = z
    .string()
    .describe("File path relative to the workspace root, with / separators, such as notes/plan.md");

  const readFile = tool(async ({ path }, ctx) => workspaceOf(ctx, "read_file").readFile(path), {
    name: "read_file",
    description: "Read a text file from the workspace and return its content.",
    input: z.object({ path: pathArg }),
    output: z.string(),
  });

  const writeFile = tool(
    async ({ path, text }, ctx) => {
      await workspaceOf(ctx, "write_file").writeFile(path, text);
      return { path: normalizePath(path), chars: text.length };
    },
    {
      name: "write_file",
      description:
        "Create or replace a text file in the workspace (missing directories are created). Returns the path and the number of characters written.",
      input: z.object({ path: pathArg, text: z.string().describe("The whole new content") }),
      output: z.object({ path: z.string(), chars: z.number().int() }),
    },
  );

  const listFiles = tool(async ({ dir }, ctx) => workspaceOf(ctx, "list_files").list(dir), {
    name: "list_files",
    description:
      "List the files under a directory of the workspace, recursively, as paths relative to the workspace root.",
    input: z.object({
      dir: z
        .string()
        .default("")
        .describe('Directory relative to the workspace root; "" (the default) is the root'),
    }),
    output: z.array(z.string()),
  });

  const editFile = tool(
    async ({ path, oldText, newText, replaceAll }, ctx) => {
      const ws = workspaceOf(ctx, "edit_file");
      if (oldText === "") {
        throw new ValueError(
          `edit_file ${quotePath(path)}: oldText is empty; give the exact text to replace`,
        );
      }
      const text = await ws.readFile(path);
      const count = text.split(oldText).length - 1;
      if (count === 0) {
        throw new ValueError(
          `edit_file ${quotePath(path)}: oldText was not found; read the file and copy the exact text, whitespace included`,
        );
      }
      if (count > 1 && !replaceAll) {
        throw new ValueError(
          `edit_file ${quotePath(path)}: oldText occurs ${count} times; include more surrounding text to pick one, or pass replaceAll: true`,
        );
      }
      await ws.writeFile(path, text.split(oldText).join(newText));
      return { path: normalizePath(path), replacements: replaceAll ? count : 1 };
    },
    {
      name: "edit_file",
      description:
        "Replace an exact piece of text in a workspace file. oldText must occur exactly once unless replaceAll is true. Returns the number of replacements.",
      input: z.object({
        path: pathArg,
        oldText: z.string().describe("The exact text to replace, whitespace included"),
        newText: z.string().describe("The text to put in its place"),
        replaceAll: z
          .boolean()
          .default(false)
          .describe("Replace every occurrence instead of requiring exactly one"),
      }),
      output: z.object({ path: z.string(), replacements: z.number().int() }),
    },
  );
  return [readFile, writeFile, listFiles, editFile] as unknown as AnyTool[];
});

/**
 * Ready file tools over the run's workspace (`ctx.workspace`):
 *
 * - `read_file({ path })` → the file's text;
 * - `write_file({ path, text })` → `{ path, chars }` (the path normalized, characters written);
 * - `list_files({ dir = "" })` → the file paths under `dir`, recursively, sorted;
 * - `edit_file({ path, oldText, newText, replaceAll = false })` → `{ path, replacements }`:
 *   exact text replacement; `ValueError` when `oldText` is empty, not found, or found more than
 *   once without `replaceAll`.
 *
 * Errors: a refused path or a missing file is a `WorkspaceError` (with `toolErrors: "return"`
 * the model reads `"Tool error: WorkspaceError: ..."` and can try again); a run without a
 * workspace fails with `GraphConfigError`.
 *
 * @param options - `{ readOnly }`: only `read_file` and `list_files`.
 * @returns the tools, in the order above.
 * @example
 * ```ts
 * const agent = buildReactAgent(chat, {
 *   tools: workspaceTools(),
 *   workspace: new DirectoryWorkspace("./agent-files"),
 *   toolErrors: "return",
 * });
 * ```
 */
export function workspaceTools(options: WorkspaceToolsOptions = {}): AnyTool[] {
  const all = fileTools();
  return options.readOnly === true ? [all[0] as AnyTool, all[2] as AnyTool] : all;
}
