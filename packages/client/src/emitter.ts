/** A small typed event emitter (no Node `events` in the browser entry). */
export class Emitter<E extends Record<string, unknown>> {
  private readonly handlers = new Map<keyof E, Set<(v: never) => void>>();
  /** Adds a listener; returns a function that removes it. */
  on<K extends keyof E>(event: K, fn: (value: E[K]) => void): () => void {
    let s = this.handlers.get(event);
    if (!s) this.handlers.set(event, (s = new Set()));
    s.add(fn as (v: never) => void);
    return () => this.off(event, fn);
  }
  once<K extends keyof E>(event: K, fn: (value: E[K]) => void): () => void {
    const off = this.on(event, (v) => {
      off();
      fn(v);
    });
    return off;
  }
  off<K extends keyof E>(event: K, fn: (value: E[K]) => void): void {
    this.handlers.get(event)?.delete(fn as (v: never) => void);
  }
  protected emit<K extends keyof E>(event: K, value: E[K]): void {
    for (const fn of [...(this.handlers.get(event) ?? [])]) {
      try {
        (fn as (v: E[K]) => void)(value);
      } catch (e) {
        // a listener's bug must not break the client's own state machine
        queueMicrotask(() => {
          throw e;
        });
      }
    }
  }
}
