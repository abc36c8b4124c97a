/**
 * A run worker's model choice (`RunWorkerOptions.models`, `nodestep worker --models`): the
 * graph a queued run asks for by model name, as the server picks it (`ServerOptions.models`).
 *
 * @module
 */
import { UnknownModelError } from "../../errors/index.js";
import type { Graph } from "../../graph/graph.js";
import type { StateDefinition } from "../../state/define-state.js";

/** Any graph a worker runs (the servers' `ServedGraph`). */
type ServedGraph = Graph<StateDefinition | null>;

/** `RunWorkerOptions.models`: the graphs by model name, as the servers' `ServerOptions.models`. */
export interface RunModelChoices {
  /** The name of the model the worker's `graph` uses, or `null` when unknown. */
  current: string | null;
  /** The other graphs a run may ask for by name, each the same flow with another model. */
  graphs: Readonly<Record<string, ServedGraph>>;
}

/**
 * Check a worker's model choices: each graph on the worker graph's store and of its name.
 * @throws TypeError for a choice on another store or of another graph name.
 */
export function checkRunModels(graph: ServedGraph, models: RunModelChoices): RunModelChoices {
  for (const [name, g] of Object.entries(models.graphs)) {
    if (g.stateStore !== graph.stateStore) {
      throw new TypeError(
        `runRunWorker: models: the graph of "${name}" is not on the worker graph's store; build every choice on the same stateStore`,
      );
    }
  }
  return models;
}

/**
 * The graph of a run's model choice: `graph` without one (or for the current model's name),
 * else the choice of that name.
 * @throws UnknownModelError when the worker has no graph of that name.
 */
export function graphOfModel(
  graph: ServedGraph,
  models: RunModelChoices | null,
  model: string | undefined,
  runId: string,
): ServedGraph {
  if (model === undefined || model === models?.current) return graph;
  const chosen =
    models !== null && Object.hasOwn(models.graphs, model) ? models.graphs[model] : undefined;
  if (chosen !== undefined) return chosen;
  const choices = [
    ...(models?.current ? [models.current] : []),
    ...Object.keys(models?.graphs ?? {}).filter((n) => n !== models?.current),
  ];
  throw new UnknownModelError(
    `Run "${runId}" asks for model "${model}", which this worker does not offer (${choices.length ? `it offers: ${choices.join(", ")}` : "it was started without --models"}); start workers with the same --models as the servers`,
    { model, choices },
  );
}
