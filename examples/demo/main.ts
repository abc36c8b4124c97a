/**
 * The nodestep demo: an order-support agent over a small shop shipped in `data/`.
 *
 *   npm run demo                                  # asks "Where is order A-1002?"
 *   npm run demo -- "Do you have blue mugs in stock?"
 *   npm run demo -- --thread <id> "And order A-1003?"   # continue a thread
 *
 * With no configuration the model is a `ScriptedChat` driven by a small scripted planner (no
 * network, no keys). `NODESTEP_MODEL=openai:gpt-4o-mini` (with `OPENAI_API_KEY`),
 * `anthropic:<model>` (with `ANTHROPIC_API_KEY`) or `ollama:llama3.2` uses a real model.
 * Threads are kept where the `nodestep` command looks for them: in SQLite at
 * `.nodestep/nodestep.db`, or the store of `NODESTEP_STORE` (`sqlite:FILE` or `memory`), so
 * `npx nodestep history <thread>` and `npx nodestep serve examples/demo/agent.ts#buildDemoAgent`
 * find the demo's threads.
 *
 * See docs/demo.md.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { parseArgs } from "node:util";
import {
  HumanMessage,
  MemoryStateStore,
  type Message,
  ModelSpecError,
  ScriptedChat,
  type StateStore,
  type ToolMessage,
} from "nodestep";
import { type Chat, type ChatStreamChunk, textOf } from "nodestep/chat";
import { chatModel, parseModelSpec } from "nodestep/models";
import { buildDemoAgent } from "./agent.js";
import { PLANNER_MODEL, plannerScript } from "./planner.js";
import { loadShop } from "./tools.js";

const DEFAULT_QUESTION = "Where is order A-1002?";
/** The `nodestep` command's default store (docs/cli.md), so both find the same threads. */
const DEFAULT_STORE = "sqlite:.nodestep/nodestep.db";
const USAGE = `Usage: npm run demo -- [options] [question]

Asks the order-support agent one question (default: "${DEFAULT_QUESTION}").

Options:
  --thread ID      continue thread ID (with --new: start a new thread named ID)
  --new            start a new thread (the default without --thread)
  --store KIND     "sqlite" (default: the nodestep command's store, $NODESTEP_STORE or
                   sqlite:.nodestep/nodestep.db) or "memory"
  -h, --help       show this help

Environment:
  NODESTEP_STORE   sqlite:FILE or memory: where threads are kept (as for the nodestep command)
  NODESTEP_MODEL   provider:model, e.g. openai:gpt-4o-mini, anthropic:claude-3-5-haiku-latest,
                   ollama:llama3.2, or an AI SDK provider package (google:gemini-2.5-flash
                   with @ai-sdk/google installed); unset: a scripted model (no network, no keys)`;

const out = (text: string) => process.stdout.write(text);
const line = (text = "") => out(`${text}\n`);

class UsageError extends Error {
  override name = "UsageError";
}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandLine(argv);
  if (values.help) {
    line(USAGE);
    return;
  }
  if (values.store !== "sqlite" && values.store !== "memory") {
    throw new UsageError(`--store must be "sqlite" or "memory", got "${values.store}"`);
  }
  const question = positionals.join(" ").trim() || DEFAULT_QUESTION;

  const { chat, label: modelLabel } = await chooseChat(process.env.NODESTEP_MODEL);
  const { store, label: storeLabel, durable } = await openStore(values.store);
  try {
    const agent = buildDemoAgent({ stateStore: store, chat }).graph;

    const threadId = values.thread ?? newThreadId();
    const before = await agent.getState(threadId);
    const exists = before.lastEventId !== null;
    if (values.thread !== undefined && !values.new && !exists) {
      throw new UsageError(
        `no thread "${threadId}" in ${storeLabel}; start one with --new --thread ${threadId}, or leave out --thread`,
      );
    }
    if (values.new && exists) {
      throw new UsageError(`thread "${threadId}" already exists; continue it without --new`);
    }

    line("nodestep demo: order support");
    line(`model: ${modelLabel}`);
    line(
      `thread ${threadId} (${exists ? `continued, ${before.state.messages.length} messages` : "new"}), ${storeLabel}`,
    );
    line();
    line(`you: ${question}`);

    let modelCalls = 0;
    let streaming = false; // text of the current model turn is being printed
    const events = agent.stream(
      { messages: [HumanMessage({ content: question })] },
      { modes: ["updates", "tokens", "custom"], threadId, context: loadShop() },
    );
    for await (const event of events) {
      if (event.mode === "tokens") {
        const delta = (event.data as ChatStreamChunk).contentDelta;
        if (delta) {
          if (!streaming) out("assistant: ");
          streaming = true;
          out(delta);
        }
      } else if (event.mode === "updates" && event.node === "think") {
        modelCalls++;
        const ai = messagesOf(event.data).at(-1);
        if (streaming) line();
        else if (ai?.type === "ai" && ai.content) line(`assistant: ${ai.content}`);
        streaming = false;
        if (ai?.type === "ai") {
          if (ai.refusal) line(`assistant refused: ${ai.refusal}`);
          for (const call of ai.toolCalls)
            line(`  → calling ${call.name}(${formatArgs(call.arguments)})`);
        }
      } else if (event.mode === "updates" && event.node === "act") {
        for (const m of messagesOf(event.data)) {
          if (m.type === "tool") line(`  ← ${m.name}: ${shortResult(m)}`);
        }
      } else if (event.mode === "custom") {
        line(`  • ${event.node}: ${JSON.stringify(event.data)}`);
      }
    }

    const after = await agent.getState(threadId);
    line();
    line(`${modelCalls} model call${modelCalls === 1 ? "" : "s"}`);
    line(`thread ${threadId}, ${after.state.messages.length} messages`);
    if (durable) {
      line(`continue it: npm run demo -- --thread ${threadId} "your next question"`);
      line(`its steps: npx nodestep history ${threadId}`);
    }
  } finally {
    await store.close();
  }
}

function parseCommandLine(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        thread: { type: "string" },
        new: { type: "boolean", default: false },
        store: { type: "string", default: "sqlite" },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/** Read the data of an `"updates"` event as the messages it appends. */
function messagesOf(data: unknown): Message[] {
  if (typeof data !== "object" || data === null || !("messages" in data)) return [];
  return Array.isArray(data.messages) ? (data.messages as Message[]) : [];
}

/** `{ orderId: "A-1002" }` → `orderId=A-1002`. */
function formatArgs(args: Record<string, unknown>): string {
  return Object.entries(args)
    .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(", ");
}

/** A tool message in one short line: its result as compact JSON, or the error text. */
function shortResult(m: ToolMessage, max = 100): string {
  let text = textOf(m.content) ?? "";
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === "object" && parsed !== null && "result" in parsed) {
      text = JSON.stringify(parsed.result);
    }
  } catch {
    // an error text: shown as it is
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function newThreadId(): string {
  return `demo-${randomBytes(4).toString("hex")}`;
}

/** The chat model: `NODESTEP_MODEL` (`provider:model`), or the scripted planner. */
async function chooseChat(spec: string | undefined): Promise<{ chat: Chat; label: string }> {
  if (spec === undefined || spec.trim() === "") {
    return {
      chat: new ScriptedChat(plannerScript(), { model: PLANNER_MODEL }),
      label:
        "scripted (ScriptedChat, no network; set NODESTEP_MODEL=openai:gpt-4o-mini to use a real model)",
    };
  }
  let provider: string;
  let model: string;
  try {
    ({ provider, modelId: model } = parseModelSpec(spec));
  } catch {
    throw new UsageError(
      `NODESTEP_MODEL must be provider:model, like openai:gpt-4o-mini; got "${spec}"`,
    );
  }
  if (provider === "openai") needKey("OPENAI_API_KEY", spec);
  if (provider === "anthropic") needKey("ANTHROPIC_API_KEY", spec);
  const host = process.env.OLLAMA_HOST;
  try {
    // openai:, anthropic:, ollama: or any installed AI SDK provider package (google:, mistral:…)
    const chat = await chatModel(spec, provider === "ollama" && host ? { host } : {});
    return { chat, label: `${provider} ${model}` };
  } catch (e) {
    if (e instanceof ModelSpecError) throw new UsageError(`NODESTEP_MODEL: ${e.message}`);
    throw e;
  }
}

function needKey(name: string, spec: string): void {
  if (!process.env[name]) throw new UsageError(`NODESTEP_MODEL=${spec} needs ${name} to be set`);
}

/** The thread store: SQLite on disk when better-sqlite3 loads, else memory. */
async function openStore(
  kind: "sqlite" | "memory",
): Promise<{ store: StateStore; label: string; durable: boolean }> {
  const spec = process.env.NODESTEP_STORE || DEFAULT_STORE;
  if (kind === "sqlite" && spec !== "memory" && !spec.startsWith("sqlite:")) {
    throw new UsageError(
      `the demo keeps its threads in SQLite or in memory: NODESTEP_STORE must be sqlite:FILE or memory, got "${spec}"`,
    );
  }
  if (kind === "sqlite" && spec !== "memory") {
    const path = spec.slice("sqlite:".length);
    let sqlite: typeof import("nodestep/sqlite") | null = null;
    try {
      sqlite = await import("nodestep/sqlite");
    } catch (e) {
      line(`(SQLite is not available: ${(e as Error).message}; keeping the thread in memory)`);
    }
    if (sqlite) {
      mkdirSync(dirname(path), { recursive: true });
      return {
        store: new sqlite.SqliteStateStore({ path }),
        label: `SQLite ${path}`,
        durable: true,
      };
    }
  }
  return {
    store: new MemoryStateStore(),
    label: "in memory (gone when the demo ends)",
    durable: false,
  };
}

try {
  await main(process.argv.slice(2));
} catch (e) {
  const error = e instanceof Error ? e : new Error(String(e));
  if (error instanceof UsageError) {
    process.stderr.write(`demo: ${error.message}\n(npm run demo -- --help lists the options)\n`);
    process.exitCode = 2;
  } else {
    process.stderr.write(`\ndemo failed: ${error.name}: ${error.message}\n`);
    process.exitCode = 1;
  }
}
