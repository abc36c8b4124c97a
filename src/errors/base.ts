/**
 * The base of every nodestep error: `NodestepError`, its options, and `ValueError`.
 */

/** Options shared by every nodestep error constructor. */
export interface NodestepErrorOptions {
  /** The error that caused this one, when there is one. */
  cause?: unknown;
}

/**
 * Base class of every nodestep error. Catch it to handle anything nodestep raised.
 *
 * @example
 * ```ts
 * try { await graph.invoke(input); } catch (e) { if (e instanceof NodestepError) console.error(e.message); }
 * ```
 */
export class NodestepError extends Error {
  constructor(message: string, options?: NodestepErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
  }
}

/** Python's `ValueError`: an argument has the right type but a value that is not allowed. */
export class ValueError extends NodestepError {}
