// Fair admission to the turn slots (ARCHITECTURE.md, "Sharing the GPU"): a Virtual Token Counter
// (VTC, after Sheng et al., "Fairness in Serving Large Language Models") over channels, and within
// a channel over people. VTC rather than deficit round robin because a turn's cost is known only
// afterwards: VTC charges an estimate when a turn starts and corrects it with the tokens the turn
// really used, where DRR needs the cost to decide. A counter that was idle is lifted to the least
// busy waiting one when it comes back, so quiet time is not banked into a burst later.

/** Who a waiting turn is for; `weight` is the channel's share (fairShareWeight). */
export interface FairClaim {
  channel: string;
  person: string;
  weight: number;
}

/** Frees the slot; `tokens` (what the turn used) corrects the estimate charged at the start. */
export type FairRelease = (tokens?: number) => void;

interface Waiter {
  claim: FairClaim;
  grant: (release: FairRelease) => void;
}

/** Counters of one level (channels, or one channel's people) with their waiting turns. */
class Level<T> {
  readonly counter = new Map<string, number>();
  readonly waiting = new Map<string, T[]>();
  /** When each key was last served (a sequence number): ties go to the one served longest ago. */
  readonly servedAt = new Map<string, number>();
  private lastServed = 0;
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

  served(key: string): void {
    this.lastServed = this.counter.get(key) ?? 0;
    this.servedAt.set(key, ++this.seq);
  }

  charge(key: string, amount: number): void {
    this.counter.set(key, (this.counter.get(key) ?? 0) + amount);
  }
}

export interface FairSlotsOptions {
  slots: number;
  /** `fair` (VTC) or `fifo` (first come, first served: the old order, for comparison). */
  mode: 'fair' | 'fifo';
  /** Charged when a turn starts; corrected at its end. */
  estimateTokens: number;
}

export class FairSlots {
  private readonly o: FairSlotsOptions;
  private free: number;
  private readonly channels = new Level<string>();
  private readonly people = new Map<string, Level<Waiter>>();
  private readonly fifo: Waiter[] = [];
  private count = 0;
  /** Bumped whenever the queue or a counter changes. */
  private version = 0;
  private cached: { version: number; at: Map<FairClaim, number> } | undefined;

  constructor(o: FairSlotsOptions) {
    this.o = o;
    this.free = o.slots;
  }

  /** Turns waiting for a slot. */
  get waiting(): number {
    return this.count;
  }

  acquire(claim: FairClaim): Promise<FairRelease> {
    return new Promise((grant) => {
      const w: Waiter = { claim, grant };
      this.count += 1;
      this.version += 1;
      if (this.o.mode === 'fifo') this.fifo.push(w);
      else {
        let level = this.people.get(claim.channel);
        if (!level) {
          level = new Level<Waiter>();
          this.people.set(claim.channel, level);
        }
        level.join(claim.person, w);
        // The channel level knows which channels wait, not how many of their turns.
        if (!this.channels.waiting.has(claim.channel))
          this.channels.join(claim.channel, claim.channel);
      }
      this.dispatch();
    });
  }

  /**
   * How many waiting turns would start before the one that claimed with `claim` (0: next; none
   * once it runs). The order is worked out once per change of the queue, so asking is cheap.
   */
  ahead(claim: FairClaim): number | undefined {
    if (this.cached?.version !== this.version) {
      const order = this.o.mode === 'fifo' ? this.fifo : this.order();
      this.cached = { version: this.version, at: new Map(order.map((w, i) => [w.claim, i])) };
    }
    return this.cached.at.get(claim);
  }

  private next(): Waiter | undefined {
    if (this.o.mode === 'fifo') return this.fifo.shift();
    const channel = this.channels.least();
    if (channel === undefined) return undefined;
    const level = this.people.get(channel);
    const person = level?.least();
    const w = person === undefined ? undefined : level?.take(person);
    if (!level || level.waiting.size === 0) this.channels.take(channel);
    else this.channels.served(channel);
    return w;
  }

  private dispatch(): void {
    while (this.free > 0) {
      const w = this.next();
      if (!w) return;
      this.free -= 1;
      this.count -= 1;
      this.version += 1;
      w.grant(this.start(w.claim));
    }
  }

  private start(claim: FairClaim): FairRelease {
    const est = this.o.estimateTokens;
    this.chargeTo(claim, est);
    let released = false;
    return (tokens) => {
      if (released) return;
      released = true;
      // A count that is not a number would poison the counters and stall every waiting turn.
      if (tokens !== undefined && Number.isFinite(tokens)) this.chargeTo(claim, tokens - est);
      this.free += 1;
      this.version += 1;
      this.dispatch();
    };
  }

  private chargeTo(claim: FairClaim, tokens: number): void {
    if (this.o.mode === 'fifo') return;
    this.channels.charge(claim.channel, tokens / Math.max(1, claim.weight));
    let level = this.people.get(claim.channel);
    if (!level) {
      level = new Level<Waiter>();
      this.people.set(claim.channel, level);
    }
    level.charge(claim.person, tokens);
  }

  /** The order the waiting turns would start in if nobody else came and every estimate held. */
  private order(): Waiter[] {
    const sim = new FairSlots({ ...this.o, slots: 0 });
    for (const [k, v] of this.channels.counter) sim.channels.counter.set(k, v);
    for (const [k, v] of this.channels.servedAt) sim.channels.servedAt.set(k, v);
    for (const [ch, level] of this.people) {
      const copy = new Level<Waiter>();
      for (const [k, v] of level.counter) copy.counter.set(k, v);
      for (const [k, v] of level.servedAt) copy.servedAt.set(k, v);
      for (const [k, q] of level.waiting) copy.waiting.set(k, [...q]);
      sim.people.set(ch, copy);
    }
    for (const [k, q] of this.channels.waiting) sim.channels.waiting.set(k, [...q]);
    const out: Waiter[] = [];
    for (let w = sim.next(); w; w = sim.next()) {
      out.push(w);
      sim.chargeTo(w.claim, this.o.estimateTokens);
    }
    return out;
  }
}
