/**
 * Group commit: items pushed while a batch runs wait and go together in the next one. Used to
 * take nonces (one signer-row lock per batch) and to mark transactions as sent.
 */
type Waiter<I, O> = { item: I; resolve: (o: O) => void; reject: (e: unknown) => void };

export class Batcher<I, O> {
  private pending: Waiter<I, O>[] = [];
  private running = false;

  constructor(
    private readonly runBatch: (items: I[]) => Promise<O[]>,
    private readonly maxSize = 256,
  ) {}

  push(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      this.kick();
    });
  }

  private kick() {
    if (this.running || !this.pending.length) return;
    this.running = true;
    setImmediate(async () => {
      const batch = this.pending.splice(0, this.maxSize);
      try {
        const out = await this.runBatch(batch.map((b) => b.item));
        batch.forEach((b, i) => b.resolve(out[i]!));
      } catch (e) {
        for (const b of batch) b.reject(e);
      } finally {
        this.running = false;
        this.kick();
      }
    });
  }
}
