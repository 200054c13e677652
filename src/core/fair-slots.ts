// Fair admission to the turn slots (ARCHITECTURE.md, "Sharing the GPU"): a Virtual Token Counter
// (VTC, after Sheng et al., "Fairness in Serving Large Language Models") over channels, and within
// a channel over people. VTC rather than deficit round robin because a turn's cost is known only
// afterwards: VTC charges an estimate when a turn starts and corrects it with the tokens the turn
// really used, where DRR needs the cost to decide. A counter that was idle is lifted to the least
// busy waiting one when it comes back, so quiet time is not banked into a burst later. With
// `shared` counters (split roles: every worker's), each admission step is decided on the shared
// counters instead (redis-fair-counters.ts); this worker's counters then only mirror them, for
// the queue positions it shows.
import type { FairCorrection, SharedFairCounters } from '../store/fair-counters.ts';
import { Level } from './fair-level.ts';

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

export interface FairSlotsOptions {
  slots: number;
  /** `fair` (VTC) or `fifo` (first come, first served: the old order, for comparison). */
  mode: 'fair' | 'fifo';
  /** Charged when a turn starts; corrected at its end. */
  estimateTokens: number;
  /** Counters shared with the other workers; absent: this process's own. */
  shared?: SharedFairCounters | undefined;
  /** A channel or person idle this long is forgotten (its counter starts over); default 1 h. */
  forgetIdleMs?: number | undefined;
  now?: (() => number) | undefined;
  /** The shared counters failed: this step was decided on this process's own. */
  onSharedError?: ((err: unknown) => void) | undefined;
}

/** Idle counters are pruned after this many admissions. */
const PRUNE_EVERY = 64;
const DEFAULT_FORGET_MS = 3_600_000;

export class FairSlots {
  private readonly o: FairSlotsOptions;
  private free: number;
  private readonly channels = new Level<string>();
  private readonly people = new Map<string, Level<Waiter>>();
  private readonly fifo: Waiter[] = [];
  private count = 0;
  private admitted = 0;
  /** Bumped whenever the queue or a counter changes. */
  private version = 0;
  private cached: { version: number; at: Map<FairClaim, number> } | undefined;
  /** Corrections not yet sent to the shared counters. */
  private readonly corrections: FairCorrection[] = [];
  private stepping = false;

  constructor(o: FairSlotsOptions) {
    this.o = o;
    this.free = o.slots;
  }

  /** Turns waiting for a slot. */
  get waiting(): number {
    return this.count;
  }

  /** No admission step is under way with the shared counters (tests and benches wait for it). */
  get settled(): boolean {
    return !this.stepping && this.corrections.length === 0;
  }

  /** Channels and people with a counter kept (idle ones are pruned). */
  get known(): number {
    let n = this.channels.counter.size;
    for (const level of this.people.values()) n += level.counter.size;
    return n;
  }

  acquire(claim: FairClaim): Promise<FairRelease> {
    return new Promise((grant) => {
      const w: Waiter = { claim, grant };
      this.count += 1;
      this.version += 1;
      if (this.o.mode === 'fifo') this.fifo.push(w);
      else {
        this.levelOf(claim.channel).join(claim.person, w);
        // The channel level knows which channels wait, not how many of their turns.
        if (!this.channels.waiting.has(claim.channel))
          this.channels.join(claim.channel, claim.channel);
      }
      this.dispatch();
    });
  }

  /** The waiting turn that claimed with `claim` leaves the queue (never granted); false if not waiting. */
  withdraw(claim: FairClaim): boolean {
    let gone = false;
    if (this.o.mode === 'fifo') {
      const at = this.fifo.findIndex((w) => w.claim === claim);
      if (at >= 0) gone = this.fifo.splice(at, 1).length > 0;
    } else {
      const level = this.people.get(claim.channel);
      const w = level?.waiting.get(claim.person)?.find((x) => x.claim === claim);
      gone = w !== undefined && (level?.remove(claim.person, w) ?? false);
      if (gone && level?.waiting.size === 0) this.channels.remove(claim.channel, claim.channel);
    }
    if (gone) {
      this.count -= 1;
      this.version += 1;
    }
    return gone;
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

  private levelOf(channel: string): Level<Waiter> {
    let level = this.people.get(channel);
    if (!level) {
      level = new Level<Waiter>();
      this.people.set(channel, level);
    }
    return level;
  }

  private next(): Waiter | undefined {
    if (this.o.mode === 'fifo') return this.fifo.shift();
    const channel = this.channels.least();
    if (channel === undefined) return undefined;
    const person = this.people.get(channel)?.least();
    return person === undefined ? undefined : this.take(channel, person);
  }

  private take(channel: string, person: string): Waiter | undefined {
    const level = this.people.get(channel);
    const w = level?.take(person);
    if (!level || level.waiting.size === 0) this.channels.take(channel);
    else this.channels.served(channel);
    if (++this.admitted % PRUNE_EVERY === 0) this.prune();
    return w;
  }

  /** Forgets idle counters (see fair-level.ts), and channels left without any. */
  private prune(): void {
    const idleSince = this.now() - (this.o.forgetIdleMs ?? DEFAULT_FORGET_MS);
    this.channels.prune(idleSince);
    for (const [ch, level] of this.people) {
      if (level.prune(idleSince) === 0 && level.waiting.size === 0) this.people.delete(ch);
    }
  }

  private now(): number {
    return (this.o.now ?? Date.now)();
  }

  private dispatch(): void {
    if (this.o.shared && this.o.mode === 'fair') {
      void this.sharedSteps(this.o.shared);
      return;
    }
    while (this.free > 0) {
      const w = this.next();
      if (!w) return;
      this.grant(w);
    }
  }

  private grant(w: Waiter): void {
    this.free -= 1;
    this.count -= 1;
    this.version += 1;
    w.grant(this.start(w.claim));
  }

  /** Admission steps on the shared counters, one at a time, while a slot is free and turns wait. */
  private async sharedSteps(shared: SharedFairCounters): Promise<void> {
    if (this.stepping) return;
    this.stepping = true;
    try {
      for (;;) {
        const want = this.free > 0 && this.count > 0;
        const corrections = this.corrections.splice(0);
        if (!want && corrections.length === 0) return;
        const w = await this.sharedStep(shared, corrections, want);
        if (w) this.grant(w);
      }
    } finally {
      this.stepping = false;
    }
  }

  private async sharedStep(
    shared: SharedFairCounters,
    corrections: FairCorrection[],
    want: boolean,
  ): Promise<Waiter | undefined> {
    const candidates = want
      ? [...this.channels.waiting.keys()].map((channel) => {
          const level = this.people.get(channel);
          const head = level?.waiting.values().next().value?.[0];
          return {
            channel,
            weight: head?.claim.weight ?? 1,
            people: [...(level?.waiting.keys() ?? [])],
          };
        })
      : [];
    try {
      const step = await shared.step(corrections, candidates, this.o.estimateTokens);
      for (const [ch, c] of step.channels) this.channels.counter.set(ch, c);
      for (const [ch, ps] of step.people) {
        for (const [p, c] of ps) this.levelOf(ch).counter.set(p, c);
      }
      this.version += 1;
      if (!step.pick) return want ? this.next() : undefined;
      const w = this.take(step.pick.channel, step.pick.person);
      // It left while the step ran: give back what the step charged it.
      if (!w) this.refund(step.pick.channel, step.pick.person);
      return w;
    } catch (err) {
      this.o.onSharedError?.(err);
      return want ? this.next() : undefined;
    }
  }

  private refund(channel: string, person: string): void {
    const est = this.o.estimateTokens;
    this.corrections.push({ channel, person, channelTokens: -est, personTokens: -est });
  }

  private start(claim: FairClaim): FairRelease {
    const est = this.o.estimateTokens;
    this.chargeTo(claim, est);
    this.channels.run(claim.channel, 1);
    this.levelOf(claim.channel).run(claim.person, 1);
    let released = false;
    return (tokens) => {
      if (released) return;
      released = true;
      this.channels.run(claim.channel, -1);
      this.levelOf(claim.channel).run(claim.person, -1);
      // A count that is not a number would poison the counters and stall every waiting turn.
      if (tokens !== undefined && Number.isFinite(tokens)) {
        this.chargeTo(claim, tokens - est);
        if (this.o.shared && this.o.mode === 'fair') {
          const channelTokens = (tokens - est) / Math.max(1, claim.weight);
          this.corrections.push({ ...claim, channelTokens, personTokens: tokens - est });
        }
      }
      this.free += 1;
      this.version += 1;
      this.dispatch();
    };
  }

  private chargeTo(claim: FairClaim, tokens: number): void {
    if (this.o.mode === 'fifo') return;
    const now = this.now();
    this.channels.charge(claim.channel, tokens / Math.max(1, claim.weight), now);
    this.levelOf(claim.channel).charge(claim.person, tokens, now);
  }

  /** The order the waiting turns would start in if nobody else came and every estimate held. */
  private order(): Waiter[] {
    const sim = new FairSlots({ ...this.o, slots: 0, shared: undefined });
    const channels = this.channels.copy();
    for (const [k, v] of channels.counter) sim.channels.counter.set(k, v);
    for (const [k, v] of channels.servedAt) sim.channels.servedAt.set(k, v);
    for (const [k, q] of channels.waiting) sim.channels.waiting.set(k, q);
    sim.channels.lastServed = channels.lastServed;
    for (const [ch, level] of this.people) sim.people.set(ch, level.copy());
    // The simulation must not prune (it would count its admissions toward it).
    sim.admitted = Number.NaN;
    const out: Waiter[] = [];
    for (let w = sim.next(); w; w = sim.next()) {
      out.push(w);
      sim.chargeTo(w.claim, this.o.estimateTokens);
    }
    return out;
  }
}
