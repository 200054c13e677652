// One level of the Virtual Token Counter (fair-slots.ts): the counters of channels, or of one
// channel's people, with their waiting turns. A counter is only ever compared with the others of
// its level, and one at or below the level's floor (the counter of the one served last) would be
// lifted to the floor when it waits again: such a counter says nothing and is pruned. So is one
// idle for longer than the forgetting window: fairness is about recent use.

export class Level<T> {
  readonly counter = new Map<string, number>();
  readonly waiting = new Map<string, T[]>();
  /** When each key was last served (a sequence number): ties go to the one served longest ago. */
  readonly servedAt = new Map<string, number>();
  /** Turns of each key running now (their corrections are still to come). */
  readonly running = new Map<string, number>();
  /** When each key was last served or charged (ms), for forgetting idle ones. */
  readonly touched = new Map<string, number>();
  lastServed = 0;
  private seq = 0;

  /** Lifts a newly waiting key to the least counter among those waiting (or the last served). */
  join(key: string, item: T): void {
    const q = this.waiting.get(key);
    if (q) {
      q.push(item);
      return;
    }
    let floor = Number.POSITIVE_INFINITY;
    for (const k of this.waiting.keys()) floor = Math.min(floor, this.counter.get(k) ?? 0);
    if (floor === Number.POSITIVE_INFINITY) floor = this.lastServed;
    this.counter.set(key, Math.max(this.counter.get(key) ?? 0, floor));
    this.waiting.set(key, [item]);
  }

  /** The waiting key with the least counter (ties: the one served longest ago). */
  least(): string | undefined {
    let best: string | undefined;
    let bestCount = Number.POSITIVE_INFINITY;
    let bestServed = Number.POSITIVE_INFINITY;
    for (const k of this.waiting.keys()) {
      const c = this.counter.get(k) ?? 0;
      const at = this.servedAt.get(k) ?? -1;
      if (c < bestCount || (c === bestCount && at < bestServed)) {
        best = k;
        bestCount = c;
        bestServed = at;
      }
    }
    return best;
  }

  /** The next item of `key`; the key stops waiting when its queue is empty. */
  take(key: string): T | undefined {
    const q = this.waiting.get(key);
    const item = q?.shift();
    if (q && q.length === 0) this.waiting.delete(key);
    this.served(key);
    return item;
  }

  /** Takes `item` out of `key`'s queue (it left before its turn); false if it was not there. */
  remove(key: string, item: T): boolean {
    const q = this.waiting.get(key);
    const at = q?.indexOf(item) ?? -1;
    if (!q || at < 0) return false;
    q.splice(at, 1);
    if (q.length === 0) this.waiting.delete(key);
    return true;
  }

  served(key: string): void {
    this.lastServed = this.counter.get(key) ?? 0;
    this.servedAt.set(key, ++this.seq);
  }

  /** A key pruned while idle counts from the floor, as it would be lifted there. */
  charge(key: string, amount: number, now = 0): void {
    this.counter.set(key, (this.counter.get(key) ?? this.lastServed) + amount);
    this.touched.set(key, now);
  }

  /** A turn of `key` started (+1) or ended (-1). */
  run(key: string, delta: 1 | -1): void {
    const n = (this.running.get(key) ?? 0) + delta;
    if (n > 0) this.running.set(key, n);
    else this.running.delete(key);
  }

  /**
   * Forgets keys neither waiting nor running whose counter is at or below the floor or which were
   * last touched before `idleSince`; how many keys are left.
   */
  prune(idleSince: number): number {
    for (const [k, c] of this.counter) {
      if (this.waiting.has(k) || this.running.has(k)) continue;
      if (c > this.lastServed && (this.touched.get(k) ?? 0) >= idleSince) continue;
      this.counter.delete(k);
      this.servedAt.delete(k);
      this.touched.delete(k);
    }
    return this.counter.size;
  }

  /** A copy for working out the order (its waiting queues copied, not shared). */
  copy(): Level<T> {
    const c = new Level<T>();
    for (const [k, v] of this.counter) c.counter.set(k, v);
    for (const [k, v] of this.servedAt) c.servedAt.set(k, v);
    for (const [k, v] of this.touched) c.touched.set(k, v);
    for (const [k, q] of this.waiting) c.waiting.set(k, [...q]);
    c.lastServed = this.lastServed;
    c.seq = this.seq;
    return c;
  }
}
