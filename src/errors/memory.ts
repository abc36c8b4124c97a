/**
 * The error of long-term memory stores (`MemoryStore`).
 */

import { NodestepError, type NodestepErrorOptions } from "./base.js";

/**
 * A memory store (`MemoryStore`, long-term memory across threads) refused or failed an
 * operation: a bad namespace, key, value, option or vector, a limit passed, a database error,
 * a closed store. `namespace` and `key` say which item, when there is one.
 */
export class MemoryStoreError extends NodestepError {
  /** Namespace of the item at fault. */
  readonly namespace: readonly string[] | undefined;
  /** Key of the item at fault. */
  readonly key: string | undefined;
  constructor(
    message: string,
    options?: NodestepErrorOptions & { namespace?: readonly string[]; key?: string },
  ) {
    super(message, options);
    this.namespace = options?.namespace;
    this.key = options?.key;
  }
}
