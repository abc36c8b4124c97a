/** A single-consumer async queue: the run pushes stream events, the `for await` loop pulls them. */
export class EventQueue<T> implements AsyncIterable<T> {
  #items: T[] = [];
  #head = 0;
  #waiting: ((r: IteratorResult<T>) => void) | null = null;
  #failWaiting: ((e: unknown) => void) | null = null;
  #done = false;
  #error: { e: unknown } | null = null;

  push = (item: T): void => {
    if (this.#done) return;
    if (this.#waiting) {
      const w = this.#waiting;
      this.#waiting = null;
      this.#failWaiting = null;
      w({ value: item, done: false });
    } else this.#items.push(item);
  };

  close = (): void => {
    this.#done = true;
    if (this.#waiting) {
      const w = this.#waiting;
      this.#waiting = null;
      w({ value: undefined, done: true });
    }
  };

  fail = (e: unknown): void => {
    this.#error = { e };
    this.#done = true;
    if (this.#failWaiting) {
      const f = this.#failWaiting;
      this.#waiting = null;
      this.#failWaiting = null;
      f(e);
    }
  };

  next(): Promise<IteratorResult<T>> {
    if (this.#head < this.#items.length) {
      const value = this.#items[this.#head++]!;
      if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
        this.#items = this.#items.slice(this.#head);
        this.#head = 0;
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.#error) return Promise.reject(this.#error.e);
    if (this.#done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.#waiting = resolve;
      this.#failWaiting = reject;
    });
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return { next: () => this.next() };
  }
}
