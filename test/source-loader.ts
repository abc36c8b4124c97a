import { fileURLToPath } from "node:url";

/**
 * The `node` flags that run this checkout's TypeScript sources in a child process, in place of
 * `--import tsx`: `spawn(process.execPath, [...SOURCE_LOADER, "file.ts", …])`. See
 * test/setup/source-loader.mjs.
 */
export const SOURCE_LOADER: readonly string[] = [
  "--import",
  fileURLToPath(new URL("./setup/source-loader.mjs", import.meta.url)),
];
