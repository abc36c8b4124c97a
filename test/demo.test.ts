/**
 * The demo, run as a newcomer runs it: `node --import tsx
 * examples/demo/main.ts "…"` in a child process, with no model configured (so on the scripted
 * planner), its SQLite file in a temporary directory (`NODESTEP_STORE=sqlite:FILE`, as the
 * `nodestep` command reads it).
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_STORE } from "../src/cli/load.js";
import { SOURCE_LOADER } from "./source-loader.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "nodestep-demo-test-"));
const db = join(dir, "demo.db");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  code: number;
  /** stdout lines, with the database path written as `<db>`. */
  lines: string[];
  stderr: string;
}

/** Run the demo with `args`; the environment has no model or provider keys unless `env` sets them. */
function demo(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const key of ["NODESTEP_MODEL", "OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY"]) {
    delete base[key];
  }
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [...SOURCE_LOADER, "examples/demo/main.ts", ...args],
      { cwd: root, env: { ...base, NODESTEP_STORE: `sqlite:${db}`, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") return reject(error);
        resolve({
          code: typeof error?.code === "number" ? error.code : 0,
          lines: stdout.replaceAll(db, "<db>").split("\n"),
          stderr,
        });
      },
    );
  });
}

/** The ```text blocks of docs/demo.md, as lines. */
const docBlocks = [
  ...readFileSync(join(root, "docs/demo.md"), "utf8").matchAll(/```text\n([\s\S]*?)```/g),
].map((m) => (m[1] ?? "").trimEnd().split("\n"));

/** The lines as docs/demo.md shows them: the default database path, no trailing blank line. */
const asInDocs = (lines: string[]) =>
  lines
    .map((l) => l.replaceAll("<db>", ".nodestep/nodestep.db"))
    .filter((l, i, all) => l !== "" || i < all.length - 1);

const HEADER = [
  "nodestep demo: order support",
  "model: scripted (ScriptedChat, no network; set NODESTEP_MODEL=openai:gpt-4o-mini to use a real model)",
];

describe("npm run demo (scripted model, SQLite threads)", { timeout: 120_000 }, () => {
  it("answers an order-status question from the shipped data", async () => {
    const run = await demo(["--new", "--thread", "status", "Where is order A-1002?"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.lines).toEqual([
      ...HEADER,
      "thread status (new), SQLite <db>",
      "",
      "you: Where is order A-1002?",
      "  → calling get_shipping_status(orderId=A-1002)",
      '  ← get_shipping_status: {"orderId":"A-1002","status":"shipped","carrier":"DHL","tracking":"4827361950","shippedAt":"2025-03…',
      "assistant: Order A-1002 shipped with DHL on 2025-03-11 (tracking 4827361950) and should arrive by 2025-03-14.",
      "",
      "2 model calls",
      "thread status, 4 messages",
      'continue it: npm run demo -- --thread status "your next question"',
      "its steps: npx nodestep history status",
      "",
    ]);
    expect(asInDocs(run.lines)).toEqual(docBlocks[0]);
  });

  it("keeps its threads where the nodestep command looks: its hint lists the thread's steps", async () => {
    // The same default store as the CLI's, and the same NODESTEP_STORE.
    const source = readFileSync(join(root, "examples/demo/main.ts"), "utf8");
    expect(source).toContain(`const DEFAULT_STORE = "${DEFAULT_STORE}";`);
    const run = await demo(["--new", "--thread", "steps", "Where is order A-1002?"]);
    expect(run.lines.at(-2)).toBe("its steps: npx nodestep history steps");
    const history = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(
        process.execPath,
        [join(root, "bin/nodestep.js"), "history", "steps"],
        { cwd: root, env: { ...process.env, NODESTEP_STORE: `sqlite:${db}` }, timeout: 60_000 },
        (error, stdout) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout }),
      );
    });
    expect(history.code).toBe(0);
    expect(history.stdout.split("\n").slice(0, 2)).toEqual([
      "steps/main/1  run_started     step 0        you: Where is order A-1002?",
      "steps/main/2  step_committed  step 0 think  asks for get_shipping_status(orderId=A-1002)",
    ]);
  });

  it("answers a stock question by product name", async () => {
    const run = await demo(["--new", "--thread", "stock", "Do you have blue mugs in stock?"]);
    expect(run.code).toBe(0);
    expect(run.lines).toEqual([
      ...HEADER,
      "thread stock (new), SQLite <db>",
      "",
      "you: Do you have blue mugs in stock?",
      "  → calling check_stock(product=blue mugs)",
      '  ← check_stock: {"query":"blue mugs","matches":[{"sku":"MUG-BLU","name":"Blue ceramic mug","quantity":12}]}',
      "assistant: Blue ceramic mug (MUG-BLU): 12 in stock.",
      "",
      "2 model calls",
      "thread stock, 4 messages",
      'continue it: npm run demo -- --thread stock "your next question"',
      "its steps: npx nodestep history stock",
      "",
    ]);
  });

  it("continues a thread with --thread: the second run sees the first one's messages", async () => {
    const first = await demo(["--new", "--thread", "resume", "Where is order A-1003?"]);
    expect(first.code).toBe(0);
    expect(first.lines.slice(2)).toEqual([
      "thread resume (new), SQLite <db>",
      "",
      "you: Where is order A-1003?",
      "  → calling get_shipping_status(orderId=A-1003)",
      '  ← get_shipping_status: {"orderId":"A-1003","status":"processing","carrier":null,"tracking":null,"shippedAt":null,"estimate…',
      "  → calling get_order(orderId=A-1003)",
      '  ← get_order: {"id":"A-1003","customer":"Priya Nair","placedAt":"2025-03-12","status":"processing","items":[{"sku…',
      "  → calling check_stock(product=GRINDER-BRR)",
      "  → calling check_stock(product=BEANS-ETH)",
      '  ← check_stock: {"query":"GRINDER-BRR","matches":[{"sku":"GRINDER-BRR","name":"Burr coffee grinder","quantity":0}]}',
      '  ← check_stock: {"query":"BEANS-ETH","matches":[{"sku":"BEANS-ETH","name":"Ethiopian coffee beans, 250 g","quantity…',
      "assistant: Order A-1003 has not shipped yet: it is still being prepared. It is waiting for Burr coffee grinder (GRINDER-BRR), which is out of stock.",
      "",
      "4 model calls",
      "thread resume, 9 messages",
      'continue it: npm run demo -- --thread resume "your next question"',
      "its steps: npx nodestep history resume",
      "",
    ]);
    expect(first.lines.slice(4, 16)).toEqual(docBlocks[1]);

    const second = await demo(["--thread", "resume", "Any mugs left?"]);
    expect(second.code).toBe(0);
    expect(second.lines.slice(2)).toEqual([
      "thread resume (continued, 9 messages), SQLite <db>",
      "",
      "you: Any mugs left?",
      "  → calling check_stock(product=mugs)",
      '  ← check_stock: {"query":"mugs","matches":[{"sku":"MUG-BLU","name":"Blue ceramic mug","quantity":12},{"sku":"MUG-WH…',
      "assistant: Blue ceramic mug (MUG-BLU): 12 in stock. White ceramic mug (MUG-WHT): out of stock.",
      "",
      "2 model calls",
      "thread resume, 13 messages",
      'continue it: npm run demo -- --thread resume "your next question"',
      "its steps: npx nodestep history resume",
      "",
    ]);
  });

  it("refuses --thread for a thread that does not exist, and --new for one that does", async () => {
    const unknown = await demo(["--thread", "nope", "Hello"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(
      `demo: no thread "nope" in SQLite ${db}; start one with --new --thread nope, or leave out --thread\n(npm run demo -- --help lists the options)\n`,
    );
    expect((await demo(["--new", "--thread", "taken", "Hello"])).code).toBe(0);
    const again = await demo(["--new", "--thread", "taken", "Hello"]);
    expect(again.code).toBe(2);
    expect(again.stderr).toBe(
      'demo: thread "taken" already exists; continue it without --new\n(npm run demo -- --help lists the options)\n',
    );
  });

  it("refuses a NODESTEP_STORE it cannot keep threads in (not sqlite:FILE or memory)", async () => {
    const run = await demo(["Hello"], { NODESTEP_STORE: "postgres://db/app" });
    expect([run.code, run.stderr]).toEqual([
      2,
      'demo: the demo keeps its threads in SQLite or in memory: NODESTEP_STORE must be sqlite:FILE or memory, got "postgres://db/app"\n(npm run demo -- --help lists the options)\n',
    ]);
  });

  it("reads NODESTEP_MODEL through chatModel: an unknown provider says what to install", async () => {
    const run = await demo(["--store", "memory", "Hello"], { NODESTEP_MODEL: "mistral:large" });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'demo: NODESTEP_MODEL: chatModel("mistral:large"): no provider "mistral" is registered and the package @ai-sdk/mistral is not installed: run `npm install @ai-sdk/mistral` (or registerProvider("mistral", ...))\n(npm run demo -- --help lists the options)\n',
    );
  });

  it("asks the default question on a new thread in memory with --store memory", async () => {
    const run = await demo(["--store", "memory"], {
      NODESTEP_STORE: `sqlite:${join(dir, "unused.db")}`,
    });
    expect(run.code).toBe(0);
    expect(run.lines[2]).toMatch(
      /^thread demo-[0-9a-f]{8} \(new\), in memory \(gone when the demo ends\)$/,
    );
    expect(run.lines.slice(3, 9)).toEqual([
      "",
      "you: Where is order A-1002?",
      "  → calling get_shipping_status(orderId=A-1002)",
      '  ← get_shipping_status: {"orderId":"A-1002","status":"shipped","carrier":"DHL","tracking":"4827361950","shippedAt":"2025-03…',
      "assistant: Order A-1002 shipped with DHL on 2025-03-11 (tracking 4827361950) and should arrive by 2025-03-14.",
      "",
    ]);
    expect(run.lines.at(-2)).toMatch(/^thread demo-[0-9a-f]{8}, 4 messages$/);
    expect(existsSync(join(dir, "unused.db"))).toBe(false);
  });
});

describe("npm run demo with NODESTEP_MODEL (an OpenAI-compatible server on this machine)", {
  timeout: 120_000,
}, () => {
  it("drives the real OpenAIChat integration, streaming, and prints the same kind of run", async () => {
    const bodies: Array<{
      stream?: boolean;
      messages?: Array<{ role: string; content: unknown }>;
    }> = [];
    const server = await listen(async (req) => {
      const body = JSON.parse(await text(req)) as (typeof bodies)[number];
      bodies.push(body);
      if (bodies.length === 1) {
        return [
          { delta: { role: "assistant", content: null } },
          {
            delta: {
              tool_calls: [
                {
                  index: 0,
                  id: "call_abc",
                  type: "function",
                  function: { name: "get_shipping_status", arguments: '{"orderId":' },
                },
              ],
            },
          },
          { delta: { tool_calls: [{ index: 0, function: { arguments: ' "A-1007"}' } }] } },
          { delta: {}, finish_reason: "tool_calls" },
        ];
      }
      return [
        { delta: { role: "assistant", content: "Order A-1007 " } },
        { delta: { content: "was delivered on 2025-02-25." } },
        { delta: {}, finish_reason: "stop" },
      ];
    });
    try {
      const { port } = server.address() as AddressInfo;
      const run = await demo(["--store", "memory", "Where is order A-1007?"], {
        NODESTEP_MODEL: "openai:gpt-test",
        OPENAI_API_KEY: "test-key",
        OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`,
      });
      expect(run.stderr).toBe("");
      expect(run.lines[1]).toBe("model: openai gpt-test");
      expect(run.lines.slice(4, 11)).toEqual([
        "you: Where is order A-1007?",
        "  → calling get_shipping_status(orderId=A-1007)",
        '  ← get_shipping_status: {"orderId":"A-1007","status":"delivered","carrier":"FedEx","tracking":"771234567890","shippedAt":"2…',
        "assistant: Order A-1007 was delivered on 2025-02-25.",
        "",
        "2 model calls",
        expect.stringMatching(/^thread demo-[0-9a-f]{8}, 4 messages$/),
      ]);
      expect(bodies.map((b) => b.stream)).toEqual([true, true]);
      const toolResult = bodies[1]?.messages?.at(-1);
      expect(toolResult?.role).toBe("tool");
      expect(String(toolResult?.content)).toContain('"status":"delivered"');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

/** A server that answers each chat-completions request with the given chunks as server-sent events. */
function listen(
  chunks: (req: IncomingMessage) => Promise<Array<Record<string, unknown>>>,
): Promise<Server> {
  const server = createServer((req, res) => {
    chunks(req).then(
      (list) => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        for (const [i, choice] of list.entries()) {
          const chunk = {
            id: "chatcmpl-test",
            object: "chat.completion.chunk",
            created: 1_700_000_000 + i,
            model: "gpt-test",
            choices: [{ index: 0, finish_reason: null, ...choice }],
          };
          res.write(`data: ${JSON.stringify(chunk)}\n\n`);
        }
        res.end("data: [DONE]\n\n");
      },
      (e: Error) => {
        res.writeHead(500).end(e.message);
      },
    );
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

async function text(req: IncomingMessage): Promise<string> {
  let body = "";
  for await (const piece of req) body += String(piece);
  return body;
}
