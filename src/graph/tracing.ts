/**
 * OpenTelemetry tracing of runs, supersteps, nodes, model calls and tool calls, through
 * `@opentelemetry/api`: nothing is traced, and no span object is made, unless a graph is given
 * a `tracer` (or `tracer: true`, which takes `trace.getTracer("nodestep")` from the provider
 * the application registered).
 *
 * Span names and attributes:
 * - `nodestep.run <graph>`: `nodestep.graph`, `nodestep.run_id`, `nodestep.thread_id`, `nodestep.status`.
 * - `nodestep.superstep <n>`: `nodestep.step`, `nodestep.tasks`.
 * - `nodestep.node <name>`: `nodestep.node`, `nodestep.task_id`, `nodestep.interrupted` when it paused.
 * - `chat <model>` (GenAI conventions): `gen_ai.operation.name` = `chat`, `gen_ai.request.model`,
 *   `gen_ai.response.model`, `gen_ai.response.finish_reasons`, `gen_ai.usage.input_tokens`,
 *   `gen_ai.usage.output_tokens`.
 * - `execute_tool <name>`: `gen_ai.operation.name` = `execute_tool`, `gen_ai.tool.name`, `gen_ai.tool.call.id`.
 *
 * Retries (`ModelRetryMiddleware`, `ToolRetryMiddleware`): each model attempt is its own
 * `chat <model>` span, with `nodestep.attempt` (2, 3 …) from the second on; a tool call keeps one
 * span, with a `nodestep.attempt` event per attempt (`nodestep.attempt`, `nodestep.attempt.ok`,
 * and `exception.type` / `exception.message` for a failed one) once there is a second attempt.
 *
 * A failure records the exception on its span and sets the status to ERROR.
 *
 * @module
 */
import type { Attributes, Context, Span, Tracer } from "@opentelemetry/api";
import { nodeModule } from "../lazy.js";

type OtelApi = typeof import("@opentelemetry/api");
let otelApi: OtelApi | undefined;
/**
 * `@opentelemetry/api`, loaded on first use: importing nodestep does not load it, and a graph
 * without a tracer never does. It is loaded synchronously through `require` (spans start inside
 * synchronous code); the API keeps its registered provider and context manager on `globalThis`,
 * so this copy sees what the application registered through its own import.
 */
function otel(): OtelApi {
  otelApi ??= nodeModule().createRequire(import.meta.url)("@opentelemetry/api") as OtelApi;
  return otelApi;
}

/** `SpanStatusCode.ERROR` of the OpenTelemetry API (a stable enum value). */
const SPAN_STATUS_ERROR = 2;

/** What a traced node passes on to the spans of its model and tool calls. */
export interface TraceScope {
  readonly tracer: Tracer;
  /** The OpenTelemetry context holding the node's span. */
  readonly context: Context;
}

/** The tracer of a graph option: a tracer, `true` for the registered provider's, or nothing. */
export function resolveTracer(option: Tracer | boolean | undefined | null): Tracer | null {
  if (!option) return null;
  return option === true ? otel().trace.getTracer("nodestep") : option;
}

/** Start a span under `parent` (or the active context). */
export function startSpan(
  tracer: Tracer,
  name: string,
  attributes: Attributes,
  parent: Context | null,
): { span: Span; context: Context } {
  const api = otel();
  const base = parent ?? api.context.active();
  const span = tracer.startSpan(name, { attributes }, base);
  return { span, context: api.trace.setSpan(base, span) };
}

/** End a span with an error recorded (status ERROR). */
export function endWithError(span: Span, error: unknown): void {
  if (error instanceof Error) span.recordException(error);
  span.setStatus({
    code: SPAN_STATUS_ERROR,
    message: error instanceof Error ? error.message : String(error),
  });
  span.end();
}

/**
 * Run `fn` inside a child span of `scope` (a no-op wrapper when `scope` is null). `onResult` may
 * add attributes from the result before the span ends; `onStart` gets the span before `fn` runs.
 *
 * @example
 * ```ts
 * const response = await traced(ctx.trace, `chat ${chat.model}`, { "gen_ai.operation.name": "chat" }, () => chat.complete(req));
 * ```
 */
export async function traced<T>(
  scope: TraceScope | null,
  name: string,
  attributes: Attributes,
  fn: () => Promise<T>,
  onResult?: (span: Span, result: T) => void,
  onStart?: (span: Span) => void,
): Promise<T> {
  if (!scope) return fn();
  const { span } = startSpan(scope.tracer, name, attributes, scope.context);
  onStart?.(span);
  try {
    const result = await fn();
    onResult?.(span, result);
    span.end();
    return result;
  } catch (e) {
    endWithError(span, e);
    throw e;
  }
}
