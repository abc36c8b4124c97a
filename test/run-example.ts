import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Run an example as a user would (`node --import tsx FILE`) and return its stdout. */
export async function runExample(
  file: string,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--import", "tsx", file, ...args],
    {
      cwd: root,
      env: { ...process.env, ...env },
      timeout: 60_000,
    },
  );
  return stdout;
}
