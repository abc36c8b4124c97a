import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { ReplayServer } from "nodestep/testing";
import { describe, expect, it, vi } from "vitest";
import { runExample } from "./run-example.js";
import { SOURCE_LOADER } from "./source-loader.js";

// Seven children in a row on a busy machine (see vitest.config.ts).
vi.setConfig({ testTimeout: 120_000 });

const root = fileURLToPath(new URL("..", import.meta.url));
const dir = "examples/getting-started";
const read = (file: string) => readFileSync(join(root, file), "utf8");

/** Run an example in `cwd` (the thread examples write `threads.db` there). */
async function runIn(cwd: string, file: string): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [...SOURCE_LOADER, join(root, file)],
    { cwd, timeout: 60_000 },
  );
  return stdout;
}

const expected = {
  graph: "[ 'facts about green tea', 'a draft from 1 note(s)' ]\n",
  agent: "Order A-1001 has shipped.\n",
  thread: [
    "I have read 1 message(s).",
    "I have read 3 message(s).",
    "human: Hello!",
    "ai: I have read 1 message(s).",
    "human: How are you?",
    "ai: I have read 3 message(s).",
    "",
  ].join("\n"),
  continue: "I have read 5 message(s).\n6 messages, last run completed\n",
  approval: [
    'interrupted 1:0#call_1 Run tool "refund" with {"orderId":"A-1001","amount":20}?',
    "completed Done: 20 EUR refunded on A-1001.",
    "",
  ].join("\n"),
  tokens: ['"Green "', '"tea "', '"is "', '"best "', '"at "', '"80 "', '"°C."', ""].join("\n"),
};

describe("examples/getting-started print what docs/getting-started.md says", () => {
  for (const name of ["graph", "agent", "approval", "tokens"] as const) {
    it(`${dir}/${name}.ts`, async () => {
      expect(await runExample(`${dir}/${name}.ts`)).toBe(expected[name]);
    });
  }

  it(`${dir}/thread.ts, then ${dir}/continue.ts in a new process on the same file`, async () => {
    const cwd = mkdtempSync(join(tmpdir(), "nodestep-getting-started-"));
    try {
      expect(await runIn(cwd, `${dir}/thread.ts`)).toBe(expected.thread);
      expect(await runIn(cwd, `${dir}/continue.ts`)).toBe(expected.continue);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it(`${dir}/real-model.ts runs on OpenAI's API (a local replay of it) and needs nothing but the key`, async () => {
    const server = await ReplayServer.start();
    const completion = (message: object, finish_reason: string) => ({
      body: JSON.stringify({
        id: "chatcmpl-1",
        object: "chat.completion",
        created: 1741570283,
        model: "gpt-4o-mini-2024-07-18",
        choices: [
          {
            index: 0,
            message: { role: "assistant", content: null, refusal: null, ...message },
            logprobs: null,
            finish_reason,
          },
        ],
        usage: { prompt_tokens: 60, completion_tokens: 9, total_tokens: 69 },
      }),
    });
    server.enqueue(
      completion(
        {
          tool_calls: [
            {
              id: "call_1",
              type: "function",
              function: { name: "get_order_status", arguments: '{"orderId":"A-1001"}' },
            },
          ],
        },
        "tool_calls",
      ),
      completion({ content: "Order A-1001 has shipped." }, "stop"),
    );
    try {
      const out = await runExample(`${dir}/real-model.ts`, [], {
        OPENAI_API_KEY: "sk-local",
        OPENAI_BASE_URL: `${server.url}/v1`,
      });
      expect(out).toBe("Order A-1001 has shipped.\n");
      const bodies = server.requests.map((r) => ({
        path: r.path,
        auth: r.headers.authorization,
        body: r.json as {
          model: string;
          tools: { function: { name: string } }[];
          messages: { role: string; content: unknown }[];
        },
      }));
      expect(bodies.map((b) => [b.path, b.auth, b.body.model])).toEqual([
        ["/v1/chat/completions", "Bearer sk-local", "gpt-4o-mini"],
        ["/v1/chat/completions", "Bearer sk-local", "gpt-4o-mini"],
      ]);
      expect(bodies[0]!.body.tools.map((t) => t.function.name)).toEqual(["get_order_status"]);
      expect(bodies[1]!.body.messages.map((m) => m.role)).toEqual([
        "system",
        "user",
        "assistant",
        "tool",
      ]);
    } finally {
      await server.close();
    }
  });
});

describe("docs/getting-started.md", () => {
  const doc = read("docs/getting-started.md");
  const blocks = [...doc.matchAll(/```(ts|text)\n([\s\S]*?)```/g)].map((m) => ({
    lang: m[1]!,
    body: m[2]!,
  }));
  const code = blocks.filter((b) => b.lang === "ts").map((b) => b.body);

  it("shows the examples whole, in order, each followed by exactly what it prints", () => {
    const files = ["graph", "agent", "thread", "continue", "approval", "tokens"] as const;
    const programs = code.filter((c) => !c.startsWith("import { chatModel }"));
    expect(programs).toEqual(files.map((f) => read(`${dir}/${f}.ts`)));
    for (const name of files) {
      const at = blocks.findIndex((b) => b.lang === "ts" && b.body === read(`${dir}/${name}.ts`));
      expect(blocks[at + 1]).toEqual({ lang: "text", body: expected[name] });
    }
  });

  it("shows the real-model swap as lines of examples/getting-started/real-model.ts, which the test above runs", () => {
    const swap = code.filter((c) => c.startsWith("import { chatModel }"));
    expect(swap).toHaveLength(1);
    const lines = read(`${dir}/real-model.ts`).split("\n");
    const shown = swap[0]!.split("\n").filter((l) => l !== "");
    expect(shown).toHaveLength(2);
    for (const line of shown) expect(lines).toContain(line);
    // Apart from the model (and its imports and comments), real-model.ts is agent.ts.
    const rest = (text: string) =>
      text
        .replace(/const chat = new ScriptedChat\(\[[\s\S]*?\]\);\n/, "")
        .split("\n")
        .filter((l) => l !== "" && !/^(\/\/|import |const chat = )/.test(l));
    expect(rest(read(`${dir}/real-model.ts`))).toEqual(rest(read(`${dir}/agent.ts`)));
    expect(rest(read(`${dir}/agent.ts`))).toHaveLength(10); // the tool, the agent, the call
  });
});
