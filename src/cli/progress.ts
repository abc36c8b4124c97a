/**
 * The progress line `nodestep run` shows on a terminal while nothing else is printed: a
 * spinner, what is running and for how long (`⠹ think · 1.2s`). Shown only when stdout and
 * stderr are both terminals and the output is text (never with `--json`, never piped); written
 * to stderr with `\r` and cleared before anything else is printed.
 *
 * @module
 */

/** The spinner's frames, one every {@link PROGRESS_INTERVAL_MS}. */
export const SPINNER_FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"] as const;

/** How often the progress line is redrawn, in milliseconds. */
export const PROGRESS_INTERVAL_MS = 100;

/** Erase the current terminal line: carriage return, then clear to the end of the line. */
export const CLEAR_LINE = "\r\x1b[K";

/**
 * Whether `run` shows a progress line: only for text output with both stdout and stderr on a
 * terminal.
 * @example progressEnabled({ json: false, tty: true }) // true
 */
export function progressEnabled(o: { json: boolean; tty: boolean }): boolean {
  return o.tty && !o.json;
}

/**
 * The progress line for the nodes running (`label`, e.g. `"think"`, `"act: order_status"`)
 * `elapsedMs` after they started: a frame of the spinner, the label and the seconds to a
 * tenth. `null` when nothing is running.
 * @example progressText("think", 1234) // "⠹ think · 1.2s"
 */
export function progressText(label: string | null, elapsedMs: number): string | null {
  if (label === null) return null;
  const ms = Math.max(0, elapsedMs);
  const frame = SPINNER_FRAMES[Math.floor(ms / PROGRESS_INTERVAL_MS) % SPINNER_FRAMES.length];
  return `${frame} ${label} · ${(ms / 1000).toFixed(1)}s`;
}

/** A progress line on a terminal: redrawn on a timer, cleared before other output. */
export class ProgressLine {
  readonly #write: (text: string) => void;
  readonly #now: () => number;
  #label: string | null = null;
  #since = 0;
  #shown = false;
  #timer: ReturnType<typeof setInterval> | null = null;

  /** @param write - where the line goes (stderr); `now` the clock, in ms. */
  constructor(write: (text: string) => void, now: () => number = Date.now) {
    this.#write = write;
    this.#now = now;
  }

  /** Show `label` (its clock restarts when the label changes); `null` hides the line. */
  set(label: string | null): void {
    if (label !== this.#label) this.#since = this.#now();
    this.#label = label;
    if (label === null) {
      this.clear();
      return;
    }
    this.draw();
    if (this.#timer === null) {
      this.#timer = setInterval(() => this.draw(), PROGRESS_INTERVAL_MS);
      this.#timer.unref?.();
    }
  }

  /** Redraw the line now. */
  draw(): void {
    const text = progressText(this.#label, this.#now() - this.#since);
    if (text === null) return;
    this.#write(`${CLEAR_LINE}${text}`);
    this.#shown = true;
  }

  /** Erase the line (if shown) and stop redrawing until the next `set`. */
  clear(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    if (this.#shown) this.#write(CLEAR_LINE);
    this.#shown = false;
  }
}
