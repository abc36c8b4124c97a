/**
 * What the CLI loads: a state store from a `--store` spec, and a graph from a
 * `<module>#<export>` target.
 *
 * @module
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Chat } from "../chat/types.js";
import { ModelSpecError } from "../errors/index.js";
import type { ServedGraph } from "../server/types.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import type { StateStore } from "../stores/types.js";

/** A mistake in how the CLI was called: exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** A run (or a store) that failed: exit code 1, with its message. */
export class RunFailed extends Error {
  override name = "RunFailed";
}

/** The store the CLI uses when neither `--store` nor `NODESTEP_STORE` says otherwise. */
export const DEFAULT_STORE = "sqlite:.nodestep/nodestep.db";

/** An open store and how to show it. */
export interface OpenStore {
  store: StateStore;
  /** The spec, with any password masked: `sqlite:threads.db`, `postgres://app:***@db/app`, `memory`. */
  label: string;
}

/**
 * Open a store from a spec: `memory`, `sqlite:FILE` (the directory is created), or a
 * `postgres://` / `postgresql://` connection string (a `schema` query parameter picks the
 * PostgreSQL schema, default `nodestep`).
 * @throws UsageError for a spec of another shape.
 */
export async function openStore(spec: string): Promise<OpenStore> {
  if (spec === "memory") return { store: new MemoryStateStore(), label: "memory" };
  if (spec.startsWith("sqlite:")) {
    const path = spec.slice("sqlite:".length);
    if (path === "")
      throw new UsageError('--store sqlite:FILE needs a file, as in "sqlite:threads.db"');
    const { SqliteStateStore } = await importStoreIntegration(
      spec,
      "better-sqlite3",
      "better-sqlite3@12",
      () => import("../integrations/sqlite/index.js"),
    );
    return { store: new SqliteStateStore({ path }), label: spec };
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
    const { PostgresStateStore } = await importStoreIntegration(
      maskPassword(spec),
      "pg",
      "pg",
      () => import("../integrations/postgres/index.js"),
    );
    const store = new PostgresStateStore(
      schema === undefined
        ? { connectionString: url.toString() }
        : { connectionString: url.toString(), schema },
    );
    return { store, label: maskPassword(spec) };
  }
  throw new UsageError(
    `--store must be "memory", "sqlite:FILE" or a postgres:// connection string, got "${maskPassword(spec)}"`,
  );
}

/**
 * Load a store integration whose driver is an optional peer dependency, turning a missing
 * driver into one line that says what to install (the default store, `sqlite:…`, needs
 * better-sqlite3 although nobody asked for SQLite).
 * @param label the `--store` spec as printed (password masked)
 * @param pkg the driver package `load` imports, as in `"better-sqlite3"`
 * @param install what to `npm install`, as in `"better-sqlite3@12"`
 * @throws RunFailed `--store sqlite:.nodestep/nodestep.db needs the package better-sqlite3, which is not installed: run …`
 *   when `load` fails because `pkg` cannot be found; any other error of `load` as it is
 * @example await importStoreIntegration("sqlite:a.db", "better-sqlite3", "better-sqlite3@12", () => import("../integrations/sqlite/index.js"))
 */
export async function importStoreIntegration<M>(
  label: string,
  pkg: string,
  install: string,
  load: () => Promise<M>,
): Promise<M> {
  try {
    return await load();
  } catch (e) {
    const code = (e as { code?: unknown } | null)?.code;
    const message = String((e as Error | null)?.message);
    const missing =
      (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") &&
      message.includes(`'${pkg}'`);
    if (!missing) throw e;
    throw new RunFailed(
      `--store ${label} needs the package ${pkg}, which is not installed: run \`npm install ${install}\`, or pick another store with --store (memory, sqlite:FILE or a postgres:// connection string)`,
    );
  }
}

/** `postgres://u:secret@h/db` → `postgres://u:***@h/db`. */
export function maskPassword(spec: string): string {
  return spec.replace(/^(\w+:\/\/[^:/@]*:)[^@]*@/, "$1***@");
}

/**
 * What a graph target's export may return: the graph, or the graph and the `context` every run
 * gets (`ctx.context`; it is never stored, so the CLI passes it again on resume).
 */
export interface GraphApp {
  graph: ServedGraph;
  context?: unknown;
}

/** The options a graph factory receives. */
export interface GraphFactoryOptions {
  /** The store the CLI opened from `--store`: build the graph on it. */
  stateStore: StateStore;
}

/**
 * A graph target's export: a graph, or a function that builds one on the CLI's store.
 *
 * @example
 * ```ts
 * export function buildAgent({ stateStore }: GraphFactoryOptions) {
 *   return new Graph(State, { stateStore }).flow(START.to(think), think.to(END));
 * }
 * // or, with a run context: return { graph, context: { shop } };
 * ```
 */
export type GraphExport =
  | ServedGraph
  | ((options: GraphFactoryOptions) => ServedGraph | GraphApp | Promise<ServedGraph | GraphApp>);

/** How {@link loadGraph} loads a target again (`serve --watch`). */
export interface LoadHow {
  /**
   * Build the graph factory's graph on this store, already open (its `close` then leaves it
   * open), instead of opening `storeSpec`.
   */
  store?: OpenStore;
  /** Import the module anew (a fresh evaluation of the module file itself) when > 0. */
  version?: number;
  /** Called with the graph as soon as there is one, before its store and model are checked. */
  check?: (graph: ServedGraph) => void;
}

/** A loaded graph target. */
export interface LoadedGraph {
  graph: ServedGraph;
  context: unknown;
  /** The graph's store: the CLI's, or the graph's own for a graph export. */
  store: StateStore;
  /** A label of the store for messages. */
  storeLabel: string;
  /** Close the stores opened for this target. */
  close(): Promise<void>;
}

/** `"./agent.ts#build"` → `{ file: "./agent.ts", exportName: "build" }`; no `#` means `default`. */
export function parseTarget(target: string): { file: string; exportName: string } {
  const hash = target.lastIndexOf("#");
  const file = hash < 0 ? target : target.slice(0, hash);
  const exportName = hash < 0 ? "default" : target.slice(hash + 1);
  if (file === "" || exportName === "") {
    throw new UsageError(
      `a graph target is <module>#<export>, like ./agent.ts#buildAgent; got "${target}"`,
    );
  }
  return { file, exportName };
}

/**
 * Import a graph module. A TypeScript module that Node cannot load by itself (no type stripping,
 * no loader) is a usage error that says how to run it.
 */
async function importModule(
  file: string,
  path: string,
  version: number,
): Promise<Record<string, unknown>> {
  // A new query string makes the module loader evaluate the module again (serve --watch).
  const url = `${pathToFileURL(path).href}${version > 0 ? `?nodestep-reload=${version}` : ""}`;
  try {
    return (await import(url)) as Record<string, unknown>;
  } catch (e) {
    const code = (e as { code?: unknown } | null)?.code;
    if (code === "ERR_UNKNOWN_FILE_EXTENSION" && /\.[cm]?tsx?$/.test(path)) {
      throw new UsageError(
        `${file} is TypeScript and this Node.js cannot load it by itself: install tsx (npm install --save-dev tsx), which nodestep then uses, or build the module and give the .js file`,
      );
    }
    throw e;
  }
}

/** The chat model of `--model`, its errors as one usage line. */
async function modelChat(spec: string): Promise<Chat> {
  const { chatModel } = await import("../integrations/models/chat-model.js");
  try {
    return await chatModel(spec);
  } catch (e) {
    if (e instanceof ModelSpecError) throw new UsageError(`--model: ${e.message}`);
    throw e;
  }
}

function isGraph(value: unknown): value is ServedGraph {
  if (typeof value !== "object" || value === null) return false;
  const g = value as Record<string, unknown>;
  return (
    typeof g.invoke === "function" &&
    typeof g.stream === "function" &&
    typeof g.getState === "function" &&
    typeof g.history === "function" &&
    typeof g.fork === "function" &&
    "stateStore" in g
  );
}

/**
 * Import `<module>#<export>` (a file path, relative to the working directory) and get its
 * graph on the store of `storeSpec`.
 *
 * @param storeExplicit - whether the user chose the store; a graph export brings its own store,
 *   so choosing one for it is a usage error.
 * @param how - for a reload: the store to build on, and a version that imports the module anew.
 *   `how.check` is called with the graph as soon as there is one, before its store and model are
 *   checked (the run's input is checked there, so that a bad input is the error reported first).
 * @throws UsageError for a missing file or export, an export that is not a graph or a graph
 *   factory, or a graph without a store.
 */
export async function loadGraph(
  target: string,
  storeSpec: string,
  storeExplicit: boolean,
  model: { spec: string | undefined; explicit: boolean } = { spec: undefined, explicit: false },
  how: LoadHow = {},
): Promise<LoadedGraph> {
  const { file, exportName } = parseTarget(target);
  const path = resolve(file);
  if (!existsSync(path)) throw new UsageError(`no module at ${file} (looked at ${path})`);
  const mod = await importModule(file, path, how.version ?? 0);
  if (!(exportName in mod)) {
    // Sorted, as Node.js lists a module namespace's names; vitest's loader keeps their order.
    const names = Object.keys(mod).sort().join(", ") || "(none)";
    throw new UsageError(`${file} has no export "${exportName}"; its exports: ${names}`);
  }
  const value = mod[exportName];
  if (isGraph(value)) {
    how.check?.(value);
    if (storeExplicit) {
      throw new UsageError(
        `${target} is a graph with its own store, so --store does not apply; export a function ({ stateStore }) => Graph to run it on the CLI's store`,
      );
    }
    if (model.explicit) {
      throw new UsageError(
        `${target} is a graph with its own model, so --model does not apply; export a function ({ stateStore, chat }) => Graph to run it with the CLI's model`,
      );
    }
    if (!value.stateStore) {
      throw new UsageError(
        `${target} is a graph without a stateStore; give it one, or export a function ({ stateStore }) => Graph`,
      );
    }
    const store = value.stateStore;
    return {
      graph: value,
      context: undefined,
      store,
      storeLabel: `the graph's own store (${store.constructor.name})`,
      close: () => store.close(),
    };
  }
  if (typeof value !== "function") {
    throw new UsageError(
      `${target} is neither a Graph nor a function ({ stateStore }) => Graph; it is ${value === null ? "null" : typeof value}`,
    );
  }
  const chat = model.spec ? await modelChat(model.spec) : undefined;
  const given = how.store ?? null;
  const opened = given ?? (await openStore(storeSpec));
  const closeOpened = async () => {
    if (given === null) await opened.store.close();
  };
  try {
    const made: unknown = await (value as (o: GraphFactoryOptions) => unknown)({
      stateStore: opened.store,
      ...(chat !== undefined ? { chat } : {}),
    });
    let graph: unknown = made;
    let context: unknown;
    if (!isGraph(made) && typeof made === "object" && made !== null && "graph" in made) {
      graph = (made as GraphApp).graph;
      context = (made as GraphApp).context;
    }
    if (!isGraph(graph)) {
      throw new UsageError(
        `${target}({ stateStore }) returned neither a Graph nor { graph, context }`,
      );
    }
    how.check?.(graph);
    const store = graph.stateStore;
    if (!store) {
      throw new UsageError(
        `${target}({ stateStore }) returned a graph without a stateStore; pass the stateStore it was given to new Graph(State, { stateStore })`,
      );
    }
    return {
      graph,
      context,
      store,
      storeLabel:
        store === opened.store ? opened.label : `the graph's own store (${store.constructor.name})`,
      close: async () => {
        await closeOpened();
        if (store !== opened.store) await store.close();
      },
    };
  } catch (e) {
    await closeOpened().catch(() => {});
    throw e;
  }
}
