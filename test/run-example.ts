import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { SOURCE_LOADER } from "./source-loader.js";

const root = fileURLToPath(new URL("..", import.meta.url));

/**
 * Run an example as a user would (`node --import tsx FILE`; here the same transform from
 * test/setup/source-loader.mjs, which starts faster) and return its stdout.
 */
export async function runExample(
  file: string,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [...SOURCE_LOADER, file, ...args],
    {
      cwd: root,
      env: { ...process.env, ...env },
      timeout: 60_000,
    },
  );
  return stdout;
}
