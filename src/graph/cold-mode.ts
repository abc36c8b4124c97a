/**
 * The cold test mode: with it on, no graph reads a thread's position from its in-process
 * cache, so every call folds the thread from the store as a new graph object would. A test
 * switch (the `cold` vitest project turns it on, see vitest.config.ts); production code never
 * sets it, and it costs one boolean read per load.
 *
 * @module
 */

/** Whether the cold test mode is on. */
export const coldMode = { on: false };

/** Turn the cold test mode on or off (tests only). */
export function setColdMode(on: boolean): void {
  coldMode.on = on;
}
