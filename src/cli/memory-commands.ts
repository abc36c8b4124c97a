/**
 * `nodestep memory list|search|export|import|delete`: look into and manage a memory store
 * from the shell. The store is the one in the `--store` spec's file or database.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Command, Option } from "commander";
import { InMemoryStore } from "../memory/in-memory-store.js";
import { exportNamespace, importNamespace } from "../memory/transfer.js";
import type { IndexConfig, MemoryFilter, MemoryStore, SearchItem } from "../memory/types.js";
import { importStoreIntegration, maskPassword, parseTarget, UsageError } from "./load.js";

interface MemoryOpts {
  store?: string;
  index?: string;
  limit: string;
  offset: string;
  filter?: string;
  json?: boolean;
}

/** What the memory commands need from the CLI. */
export interface MemoryCommandsHost {
  out: (line?: string) => void;
  storeSpec: (o: { store?: string }) => string;
  storeOption: () => Option;
}

/** `"users/u-42"` → `["users", "u-42"]`; a JSON array is taken as it is; `""` or `"/"` is the empty prefix. */
export function parseNamespace(text: string | undefined): string[] {
  if (text === undefined || text === "" || text === "/") return [];
  if (text.startsWith("[")) {
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      throw new UsageError(`namespace ${text} is not a JSON array`);
    }
    if (!Array.isArray(v) || v.some((l) => typeof l !== "string")) {
      throw new UsageError(`namespace ${text} must be a JSON array of strings`);
    }
    return v as string[];
  }
  return text.split("/").filter((l) => l !== "");
}

/** Open the memory store of a `--store` spec (with an index from `--index`, when given). */
export async function openMemoryStore(
  spec: string,
  index: IndexConfig | undefined,
): Promise<MemoryStore> {
  const withIndex = index ? { index } : {};
  if (spec === "memory") return new InMemoryStore(withIndex);
  if (spec.startsWith("sqlite:")) {
    const path = spec.slice("sqlite:".length);
    if (path === "")
      throw new UsageError('--store sqlite:FILE needs a file, as in "sqlite:threads.db"');
    const { SqliteMemoryStore } = await importStoreIntegration(
      spec,
      "better-sqlite3",
      "better-sqlite3@12",
      () => import("../integrations/sqlite/index.js"),
    );
    return new SqliteMemoryStore({ path, ...withIndex });
  }
  if (/^postgres(ql)?:\/\//.test(spec)) {
    let url: URL;
    try {
      url = new URL(spec);
    } catch {
      throw new UsageError(`--store: "${maskPassword(spec)}" is not a valid connection string`);
    }
    const schema = url.searchParams.get("schema") ?? undefined;
    url.searchParams.delete("schema");
    const { PostgresMemoryStore } = await importStoreIntegration(
      maskPassword(spec),
      "pg",
      "pg",
      () => import("../integrations/postgres/index.js"),
    );
    return new PostgresMemoryStore({
      connectionString: url.toString(),
      ...(schema === undefined ? {} : { schema }),
      ...withIndex,
    });
  }
  throw new UsageError(
    `--store must be "memory", "sqlite:FILE" or a postgres:// connection string, got "${maskPassword(spec)}"`,
  );
}

async function loadIndex(target: string | undefined): Promise<IndexConfig | undefined> {
  if (target === undefined) return undefined;
  const { file, exportName } = parseTarget(target);
  const mod = (await import(pathToFileURL(resolve(file)).href)) as Record<string, unknown>;
  const value = mod[exportName] as Partial<IndexConfig> | undefined;
  if (
    !value ||
    typeof value.embeddings?.embed !== "function" ||
    typeof value.dimensions !== "number"
  ) {
    throw new UsageError(
      `--index ${target} must export an index config { embeddings, dimensions, fields? }`,
    );
  }
  return value as IndexConfig;
}

function whole(text: string, name: string): number {
  const n = Number(text);
  if (!Number.isInteger(n)) throw new UsageError(`--${name} must be a whole number, got "${text}"`);
  return n;
}

function filterOf(text: string | undefined): MemoryFilter | undefined {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as MemoryFilter;
  } catch (e) {
    throw new UsageError(`--filter is not JSON: ${(e as Error).message}`);
  }
}

function line(item: Omit<SearchItem, "score"> & { score?: number | null }): string {
  const score = typeof item.score === "number" ? `${item.score.toFixed(3)}  ` : "";
  return `${score}${item.namespace.join("/")}  ${item.key}  ${JSON.stringify(item.value)}`;
}

/** Add the `memory` command and its subcommands to the program. */
export function addMemoryCommands(program: Command, host: MemoryCommandsHost): void {
  const memory = program
    .command("memory")
    .description("list, search, export and import long-term memory items and namespaces");
  const withMemory = async <T>(
    o: MemoryOpts,
    fn: (store: MemoryStore) => Promise<T>,
  ): Promise<T> => {
    const store = await openMemoryStore(host.storeSpec(o), await loadIndex(o.index));
    try {
      return await fn(store);
    } finally {
      await store.close().catch(() => {});
    }
  };
  const common = (c: Command) =>
    c
      .addOption(host.storeOption())
      .option("--limit <n>", "most items (1 to 1000)", "10")
      .option("--offset <n>", "items to skip", "0")
      .option("--filter <json>", 'only items whose value matches, like \'{"kind":"fact"}\'')
      .option("--json", "print one JSON item per line");

  common(
    memory
      .command("list")
      .description(
        "list items under a namespace prefix (users/u-42, or a JSON array), by namespace then key",
      )
      .argument("[namespace]", "the prefix; default all"),
  ).action(async (ns: string | undefined, o: MemoryOpts) => {
    await withMemory(o, async (store) => {
      const filter = filterOf(o.filter);
      const items = await store.list(parseNamespace(ns), {
        limit: whole(o.limit, "limit"),
        offset: whole(o.offset, "offset"),
        ...(filter ? { filter } : {}),
      });
      if (!o.json && items.length === 0) return host.out("no items");
      for (const item of items) host.out(o.json ? JSON.stringify(item) : line(item));
    });
  });

  common(
    memory
      .command("search")
      .description("search items under a namespace prefix by meaning (--query needs --index)")
      .argument("[namespace]", "the prefix; default all")
      .option("-q, --query <text>", "what to search for")
      .option(
        "--index <module#export>",
        "the store's index config { embeddings, dimensions, fields }",
      ),
  ).action(async (ns: string | undefined, o: MemoryOpts & { query?: string }) => {
    await withMemory(o, async (store) => {
      const filter = filterOf(o.filter);
      const items = await store.search(parseNamespace(ns), {
        limit: whole(o.limit, "limit"),
        offset: whole(o.offset, "offset"),
        ...(filter ? { filter } : {}),
        ...(o.query !== undefined ? { query: o.query } : {}),
      });
      if (!o.json && items.length === 0) return host.out("no items");
      for (const item of items) host.out(o.json ? JSON.stringify(item) : line(item));
    });
  });

  memory
    .command("namespaces")
    .description("list the namespaces holding items under a prefix (LangGraph: listNamespaces)")
    .argument("[namespace]", "the prefix; default all")
    .addOption(host.storeOption())
    .option("--suffix <namespace>", "only namespaces ending with these labels")
    .option("--max-depth <n>", "cut each namespace to its first n labels")
    .option("--limit <n>", "most namespaces (1 to 1000)", "100")
    .option("--offset <n>", "namespaces to skip", "0")
    .option("--json", "print one JSON array of labels per line")
    .action(
      async (ns: string | undefined, o: MemoryOpts & { suffix?: string; maxDepth?: string }) => {
        await withMemory(o, async (store) => {
          const found = await store.listNamespaces({
            prefix: parseNamespace(ns),
            ...(o.suffix !== undefined ? { suffix: parseNamespace(o.suffix) } : {}),
            ...(o.maxDepth !== undefined ? { maxDepth: whole(o.maxDepth, "max-depth") } : {}),
            limit: whole(o.limit, "limit"),
            offset: whole(o.offset, "offset"),
          });
          if (!o.json && found.length === 0) return host.out("no namespaces");
          for (const n of found) host.out(o.json ? JSON.stringify(n) : n.join("/"));
        });
      },
    );

  memory
    .command("export")
    .description("print every item under a namespace prefix as JSON lines")
    .argument("[namespace]", "the prefix; default all")
    .addOption(host.storeOption())
    .action(async (ns: string | undefined, o: MemoryOpts) => {
      await withMemory(o, async (store) => {
        for await (const l of exportNamespace(store, parseNamespace(ns))) host.out(l);
      });
    });

  memory
    .command("import")
    .description("put the items of a JSON-lines file (as export prints them) into the store")
    .argument("<file>", "the JSON-lines file")
    .addOption(host.storeOption())
    .option("--index <module#export>", "the store's index config, to embed the items")
    .action(async (file: string, o: MemoryOpts) => {
      let text: string;
      try {
        text = readFileSync(file, "utf8");
      } catch (e) {
        throw new UsageError(`cannot read ${file}: ${(e as Error).message}`);
      }
      await withMemory(o, async (store) => {
        host.out(`imported ${await importNamespace(store, text.split("\n"))} item(s)`);
      });
    });

  memory
    .command("delete")
    .description("delete every item under a namespace prefix")
    .argument("<namespace>", "the prefix (not empty)")
    .addOption(host.storeOption())
    .action(async (ns: string, o: MemoryOpts) => {
      await withMemory(o, async (store) => {
        host.out(`deleted ${await store.deleteNamespace(parseNamespace(ns))} item(s)`);
      });
    });
}
