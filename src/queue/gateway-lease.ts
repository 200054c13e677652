// One Discord gateway connection per bot token: the gateway processes race for a lease in the
// store (a `Lease`, src/store/lease.ts); the holder connects and the lease renews itself, the
// others poll. A holder that dies stops renewing, so its lease lapses after `leaseMs` and a standby
// takes over at the next poll.
import { randomUUID } from 'node:crypto';
import type { Logger } from '../log/logger.ts';
import { type HeldLease, Leases } from '../store/lease.ts';
import type { Fence } from '../store/lease-backend.ts';
import type { Store } from '../store/store.ts';

export interface LeaseOptions {
  /** The store key: one per bot token (a digest of the application id names it). */
  key: string;
  leaseMs: number;
  renewMs: number;
  pollMs: number;
}

export interface LeaseHandlers {
  /** This process holds the lease now: connect. */
  acquired(): Promise<void>;
  /**
   * It was lost (renewal found another holder, or the store was unreachable too long): disconnect.
   * The lease then stops competing; the process restarts (a destroyed discord.js client cannot
   * log in again).
   */
  lost(): Promise<void>;
}

export class GatewayLease {
  private readonly leases: Leases;
  private readonly o: LeaseOptions;
  private readonly log: Logger;
  readonly holder = randomUUID();
  private timer: NodeJS.Timeout | undefined;
  private held: HeldLease | undefined;
  private stopped = false;
  private busy: Promise<void> = Promise.resolve();

  constructor(store: Store, o: LeaseOptions, log: Logger) {
    this.o = o;
    this.log = log;
    this.leases = new Leases(store, {
      ttlMs: o.leaseMs,
      renewMs: o.renewMs,
      onRenewError: (err) => log.warn({ err }, 'could not renew the gateway lease'),
    });
  }

  get active(): boolean {
    return this.held !== undefined;
  }

  /** The lease's fencing token while this process holds it (its session saves carry it). */
  get fence(): Fence | undefined {
    return this.held?.fence;
  }

  /** Starts competing for the lease; handlers run one at a time, in order. */
  start(h: LeaseHandlers): void {
    const tick = async () => {
      if (this.stopped || this.held) return;
      const held = await this.leases.tryAcquire(this.o.key, this.holder).catch((err: unknown) => {
        this.log.warn({ err }, 'could not reach the store for the gateway lease');
        return undefined;
      });
      if (!held) return;
      this.held = held;
      held.signal.addEventListener('abort', () => {
        this.busy = this.busy.then(() => this.lose(h));
      });
      this.log.info({ token: held.token }, 'gateway lease taken; connecting to Discord');
      await h.acquired();
    };
    const schedule = () => {
      if (this.stopped || this.held) return;
      this.timer = setTimeout(() => {
        this.busy = tick()
          .catch((err: unknown) => this.log.error({ err }, 'gateway lease step failed'))
          .finally(schedule);
      }, this.o.pollMs);
    };
    this.busy = tick()
      .catch((err: unknown) => this.log.error({ err }, 'gateway lease step failed'))
      .finally(schedule);
  }

  private async lose(h: LeaseHandlers): Promise<void> {
    if (!this.held) return;
    this.held = undefined;
    this.stopped = true;
    this.log.error('gateway lease lost; disconnecting from Discord');
    await h.lost().catch((err: unknown) => this.log.error({ err }, 'gateway lease step failed'));
  }

  /** Stops competing and frees the lease at once, so a standby need not wait for it to lapse. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.busy;
    const held = this.held;
    this.held = undefined;
    await held?.release().catch(() => undefined);
  }
}
