// A lane of the database queue: at most `width` transactions of one kind (ingest writes) hold the
// database at once, the rest wait their turn in arrival order. Everything outside the lane (short reads,
// interactive requests, other transactions) does not queue here: on PostgreSQL ingest never takes more
// than `width` of the pool's connections, so others always find one. (The embedded database orders its
// ingest transactions on its own thread: pglite-worker.ts.)
export class Lane {
  private holders = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly width: number) {}

  /** Waits for a turn in the lane; answers the function that ends it (call it exactly once). */
  async enter(): Promise<() => void> {
    if (this.holders < this.width) this.holders++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const next = this.waiting.shift();
      // The turn passes straight to the next in line, so a newcomer cannot overtake it.
      if (next) next();
      else this.holders--;
    };
  }

  /** Runs `work` in a turn of the lane. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    const leave = await this.enter();
    try {
      return await work();
    } finally {
      leave();
    }
  }
}
