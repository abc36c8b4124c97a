/** `nodestep serve --model / $NODESTEP_MODEL / --models`: the model a served graph runs on, and the studio's choices. */
import { afterAll, beforeAll, expect, it } from "vitest";
import { ReplayServer } from "../integrations/testing/replay-server.js";
import { runCli } from "./program.js";

const APP = "src/cli/fixtures/refund.fixture.ts#buildChatApp";
let replay: ReplayServer;

// The OpenAI client reads its key and base URL from the process's environment: point it at
// the replay server (never at a real provider) for this file's tests.
const saved = { key: process.env.OPENAI_API_KEY, url: process.env.OPENAI_BASE_URL };
beforeAll(async () => {
  replay = await ReplayServer.start();
  process.env.OPENAI_API_KEY = "sk-test";
  process.env.OPENAI_BASE_URL = `${replay.url}/v1`;
  replay.fallback = {
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      id: "chatcmpl-1",
      object: "chat.completion",
      created: 1741569952,
      model: "gpt-test",
      choices: [
        { index: 0, message: { role: "assistant", content: "Hello." }, finish_reason: "stop" },
      ],
    }),
  };
});
afterAll(async () => {
  for (const [name, value] of [
    ["OPENAI_API_KEY", saved.key],
    ["OPENAI_BASE_URL", saved.url],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await replay?.close();
});

function serve(
  args: string[],
  env: Record<string, string>,
  client: (url: string) => Promise<void>,
) {
  let stdout = "";
  let stderr = "";
  const controller = new AbortController();
  const code = runCli(["serve", APP, "--port", "0", "--store", "memory", ...args], {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${replay.url}/v1`, ...env },
    signal: controller.signal,
    onListening: (url) => void client(url).finally(() => controller.abort()),
  });
  return code.then((c) => ({ code: c, stdout, stderr }));
}

const run = async (url: string, body: object) =>
  (
    await fetch(`${url}/api/threads/t/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    })
  ).status;

it("serves on the model of $NODESTEP_MODEL, and of --model over it", async () => {
  const seen: unknown[] = [];
  const client = async (url: string) => {
    seen.push(await (await fetch(`${url}/api/models`)).json());
    seen.push(await run(url, { message: "hi" }));
  };
  const fromEnv = await serve([], { NODESTEP_MODEL: "openai:gpt-env" }, client);
  const fromFlag = await serve(
    ["--model", "openai:gpt-flag"],
    { NODESTEP_MODEL: "openai:gpt-env" },
    client,
  );
  expect([fromEnv.code, fromEnv.stderr, fromFlag.code, fromFlag.stderr]).toEqual([0, "", 0, ""]);
  expect(seen).toEqual([
    { current: "openai:gpt-env", choices: ["openai:gpt-env"] },
    200,
    { current: "openai:gpt-flag", choices: ["openai:gpt-flag"] },
    200,
  ]);
  expect(fromEnv.stdout).toContain("model: openai:gpt-env\n");
  const models = replay.requests.slice(-2).map((q) => (q.json as { model: string }).model);
  expect(models).toEqual(["gpt-env", "gpt-flag"]);
});

it("--models offers more models; a run chooses one by name", async () => {
  const seen: unknown[] = [];
  const r = await serve(
    ["--model", "openai:gpt-a", "--models", "openai:gpt-b, openai:gpt-a"],
    {},
    async (url) => {
      seen.push(await (await fetch(`${url}/api/models`)).json());
      seen.push(await run(url, { message: "one", model: "openai:gpt-b" }));
      seen.push(await run(url, { message: "two" }));
      seen.push(await run(url, { message: "three", model: "openai:gpt-z" }));
    },
  );
  expect([r.code, r.stderr]).toEqual([0, ""]);
  expect(seen).toEqual([
    { current: "openai:gpt-a", choices: ["openai:gpt-a", "openai:gpt-b"] },
    200,
    200,
    400,
  ]);
  expect(r.stdout).toContain("model: openai:gpt-a · the studio also offers openai:gpt-b\n");
  expect(replay.requests.slice(-2).map((q) => (q.json as { model: string }).model)).toEqual([
    "gpt-b",
    "gpt-a",
  ]);
});

it("warns at start, one line naming the variable, when a model's API key is not set", async () => {
  const r = await serve(
    ["--model", "openai:gpt-a", "--models", "openai:gpt-b"],
    { OPENAI_API_KEY: "" },
    async () => {},
  );
  expect([r.code, r.stderr]).toEqual([
    0,
    "nodestep: warning: OPENAI_API_KEY is not set: runs on openai:gpt-a, openai:gpt-b will fail at their first model call\n",
  ]);
  const set = await serve(["--model", "openai:gpt-a"], {}, async () => {});
  expect([set.code, set.stderr]).toEqual([0, ""]);
});
