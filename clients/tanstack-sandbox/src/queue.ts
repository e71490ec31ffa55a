/**
 * A single-consumer async queue of text chunks: the producer pushes as output arrives, the
 * consumer iterates at its own pace. Nothing is dropped while nobody reads (a process's stderr
 * nobody looks at is simply kept), and iteration ends once the producer closes it.
 */
export class TextQueue implements AsyncIterable<string> {
  private readonly chunks: string[] = [];
  private waiting: ((result: IteratorResult<string>) => void) | undefined;
  private closed = false;

  push(chunk: string): void {
    if (this.closed) return;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value: chunk, done: false });
    } else {
      this.chunks.push(chunk);
    }
  }

  close(): void {
    this.closed = true;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value: undefined, done: true });
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<string> {
    return {
      next: () => {
        const chunk = this.chunks.shift();
        if (chunk !== undefined) return Promise.resolve({ value: chunk, done: false });
        if (this.closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => (this.waiting = resolve));
      },
      return: () => {
        this.chunks.length = 0;
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
