/**
 * The server's model choice: the chat models a run may ask for by name (`model` in a run
 * body), each a graph the graph factory built with that model on the server's store, and
 * `GET /api/models`, which names them and the one in use by default.
 *
 * @module
 */
import type { Hono } from "hono";
import { HttpError } from "./errors.js";
import { onlyQuery } from "./request.js";
import type { ServedGraph } from "./types.js";

/** `ServerOptions.models`: the graphs by model name (`"openai:gpt-4o-mini"`). */
export interface ModelChoices {
  /** The name of the model the served `graph` uses (the default for a run that names none), or `null` when unknown. */
  current: string | null;
  /** The other graphs a run may choose by name, each the same flow with another model. */
  graphs: Readonly<Record<string, ServedGraph>>;
}

/** At most this many models to choose from. */
export const MAX_MODEL_CHOICES = 32;

/**
 * Check `models` against the served graph: each choice on the same store (the thread is one
 * log whatever the model).
 * @throws TypeError for more than {@link MAX_MODEL_CHOICES} choices or a graph on another store.
 */
export function checkModelChoices(graph: ServedGraph, models: ModelChoices): ModelChoices {
  const names = Object.keys(models.graphs);
  if (names.length > MAX_MODEL_CHOICES) {
    throw new TypeError(
      `createServer: models: at most ${MAX_MODEL_CHOICES} choices, got ${names.length}`,
    );
  }
  for (const [name, g] of Object.entries(models.graphs)) {
    if (g.stateStore !== graph.stateStore) {
      throw new TypeError(
        `createServer: models: the graph of "${name}" is not on the served graph's store; build every choice on the same stateStore`,
      );
    }
  }
  return models;
}

/**
 * The graph a run asks for: the served one without `model` (or with the current model's name),
 * else the choice of that name.
 * @throws HttpError 400 `UnknownModel` naming the choices.
 */
export function graphForModel(
  graph: ServedGraph,
  models: ModelChoices | null,
  model: string | undefined,
): ServedGraph {
  if (model === undefined || model === models?.current) return graph;
  // Own names only: "toString" or "__proto__" must not find Object.prototype's members.
  const chosen =
    models !== null && Object.hasOwn(models.graphs, model) ? models.graphs[model] : undefined;
  if (chosen === undefined) {
    const names = [
      ...(models?.current ? [models.current] : []),
      ...Object.keys(models?.graphs ?? {}),
    ];
    throw new HttpError(
      400,
      "UnknownModel",
      names.length
        ? `model "${model}" is not one this server offers; choose one of: ${names.join(", ")}`
        : `model "${model}": this server offers no choice of model (start it with --models)`,
    );
  }
  return chosen;
}

/** Add `GET /api/models` → `{ current, choices }` (`choices`: every name a run may give, the current one first). */
export function addModelsRoute(app: Hono, models: ModelChoices | null): void {
  app.get("/api/models", onlyQuery(), (c) =>
    c.json({
      current: models?.current ?? null,
      choices: [
        ...(models?.current ? [models.current] : []),
        ...Object.keys(models?.graphs ?? {}).filter((n) => n !== models?.current),
      ],
    }),
  );
}
