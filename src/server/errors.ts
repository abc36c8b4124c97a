/**
 * How errors become HTTP answers: a status and a JSON body `{ error: { type, message } }`.
 *
 * Errors are matched by class name along the prototype chain, so that an error raised by
 * another copy of nodestep (a graph module that imports the package while the server runs
 * from its sources) maps the same way.
 *
 * @module
 */

/** The JSON body of every error answer. */
export interface ErrorBody {
  error: { type: string; message: string };
}

/** An error the server raises itself, with the status it answers with. */
export class HttpError extends Error {
  readonly status: number;
  readonly type: string;
  constructor(status: number, type: string, message: string) {
    super(message);
    this.name = "HttpError";
    this.status = status;
    this.type = type;
  }
}

/** Status by nodestep error class name; the first name found along the prototype chain wins. */
const STATUS_BY_CLASS: ReadonlyMap<string, number> = new Map([
  ["ThreadBusyError", 409],
  ["LeaseLostError", 409],
  ["RunStoppedError", 409],
  ["ConcurrentWriteError", 409],
  ["PendingToolCallsError", 409],
  ["UnknownBranchError", 404],
  ["UnknownEventError", 404],
  ["StateUpdateError", 400],
  ["ValueError", 400],
  ["UnknownModelError", 400],
  ["ValidationError", 400],
]);

/** The names of an error's classes, most specific first (`["ThreadBusyError", "StateStoreError", …]`). */
export function classNames(e: unknown): string[] {
  const names: string[] = [];
  let proto: unknown = typeof e === "object" && e !== null ? Object.getPrototypeOf(e) : null;
  while (proto && proto !== Object.prototype) {
    const ctor = (proto as { constructor?: { name?: unknown } }).constructor;
    if (typeof ctor?.name === "string" && ctor.name !== "") names.push(ctor.name);
    proto = Object.getPrototypeOf(proto);
  }
  return names;
}

/**
 * The status an error of class name `type` answers with (`"ThreadBusyError"` → 409), 500 for
 * a name not mapped: for an error known only by its `{ type, message }` (a run on a worker).
 */
export function statusOfErrorType(type: string): number {
  return STATUS_BY_CLASS.get(type) ?? 500;
}

/** The status and body for any error: the server's own, a mapped nodestep error, or 500. */
export function errorAnswer(e: unknown): { status: number; body: ErrorBody } {
  if (e instanceof HttpError) {
    return { status: e.status, body: { error: { type: e.type, message: e.message } } };
  }
  const error = e instanceof Error ? e : new Error(String(e));
  let status = 500;
  for (const name of classNames(error)) {
    const mapped = STATUS_BY_CLASS.get(name);
    if (mapped !== undefined) {
      status = mapped;
      break;
    }
  }
  return { status, body: { error: { type: error.name || "Error", message: error.message } } };
}
