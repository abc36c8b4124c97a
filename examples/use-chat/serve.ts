// One command for the useChat page (`npm run example:use-chat`): start `nodestep serve` on the
// scripted refund agent (agent.ts), build the page with Vite, and serve it with `vite preview`,
// which proxies `/api` to nodestep, so the page and the API share one origin. Prints the page's
// URL; Ctrl-C stops both. The browser test (test/examples-use-chat.test.ts) calls
// `startUseChat` the same way.
import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build, preview } from "vite";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");

/** Options of {@link startUseChat}. */
export interface UseChatOptions {
  /** Where the built page goes; default examples/use-chat/dist. */
  outDir?: string;
  /** Port of the page (`vite preview`); default 4173, `0` picks a free one. */
  port?: number;
  /** Port of `nodestep serve`; default 0 (a free one). */
  apiPort?: number;
  /** More environment for `nodestep serve` (such as `USE_CHAT_DELAY_MS`). */
  env?: Record<string, string>;
}

/** The running example: the page's URL, nodestep's URL, and `close()` to stop both. */
export interface UseChat {
  url: string;
  apiUrl: string;
  close(): Promise<void>;
}

/** Start `nodestep serve examples/use-chat/agent.ts#buildAgent --store memory` and wait for its URL. */
function startNodestep(port: number, env: Record<string, string>) {
  const child = spawn(
    process.execPath,
    [
      join(root, "bin", "nodestep.js"),
      "serve",
      "examples/use-chat/agent.ts#buildAgent",
      "--store",
      "memory",
      "--port",
      String(port),
    ],
    { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] },
  );
  const url = new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const m = /nodestep studio for graph "[^"]*": (http:\/\/\S+?)\/?\n/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    child.on("exit", (code) => reject(new Error(`nodestep serve exited with ${code}: ${out}`)));
  });
  return { child, url };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

/** Start nodestep, build the page and serve it; see the file's comment. */
export async function startUseChat(options: UseChatOptions = {}): Promise<UseChat> {
  const outDir = options.outDir ?? join(here, "dist");
  const api = startNodestep(options.apiPort ?? 0, options.env ?? {});
  try {
    const configFile = join(here, "vite.config.ts");
    const [apiUrl] = await Promise.all([
      api.url,
      build({ configFile, logLevel: "warn", build: { outDir, emptyOutDir: true } }),
    ]);
    process.env.NODESTEP_URL = apiUrl; // read by vite.config.ts for the proxy
    const server = await preview({
      configFile,
      logLevel: "warn",
      build: { outDir },
      preview: { port: options.port ?? 4173, strictPort: true, host: "127.0.0.1" },
    });
    const url = server.resolvedUrls?.local[0]?.replace(/\/$/, "");
    if (!url) throw new Error("vite preview did not say its URL");
    return {
      url,
      apiUrl,
      async close() {
        await server.close();
        await stop(api.child);
      },
    };
  } catch (error) {
    await stop(api.child);
    throw error;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const running = await startUseChat();
  console.log(`useChat page: ${running.url}/  (nodestep API: ${running.apiUrl}/api)`);
  const quit = () => void running.close().then(() => process.exit(0));
  process.on("SIGINT", quit);
  process.on("SIGTERM", quit);
}
