import type { Graph } from "../graph/graph.js";
import type { FieldSchema } from "../graph/io-schema.js";
import type { StateDefinition } from "../state/define-state.js";

/** Any graph the server, the CLI and the studio can run: a {@link Graph} over any state. */
export type ServedGraph = Graph<StateDefinition | null, FieldSchema | undefined>;
