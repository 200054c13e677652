// One Discord gateway connection per bot token: the gateway processes race for a lease in the
// store; the holder connects and renews it, the others poll. A holder that dies stops renewing, so
// its lease lapses after `leaseMs` and a standby takes over at the next poll.
import { randomUUID } from 'node:crypto';
import type { Logger } from '../log/logger.ts';
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
  private readonly store: Store;
  private readonly o: LeaseOptions;
  private readonly log: Logger;
  readonly holder = randomUUID();
  private timer: NodeJS.Timeout | undefined;
  private holding = false;
  private stopped = false;
  private busy: Promise<void> = Promise.resolve();

  constructor(store: Store, o: LeaseOptions, log: Logger) {
    this.store = store;
    this.o = o;
    this.log = log;
  }

  get active(): boolean {
    return this.holding;
  }

  /** Starts competing for the lease; handlers run one at a time, in order. */
  start(h: LeaseHandlers): void {
    let renewedAt = 0;
    const tick = async () => {
      if (this.stopped) return;
      if (!this.holding) {
        const got = await this.store
          .claim(this.o.key, this.holder, this.o.leaseMs)
          .catch((err: unknown) => {
            this.log.warn({ err }, 'could not reach the store for the gateway lease');
            return false;
          });
        if (!got) return;
        this.holding = true;
        renewedAt = Date.now();
        this.log.info('gateway lease taken; connecting to Discord');
        await h.acquired();
        return;
      }
      const ok = await this.store
        .renew(this.o.key, this.holder, this.o.leaseMs)
        .catch((err: unknown) => {
          this.log.warn({ err }, 'could not renew the gateway lease');
          // Unknown: keep the connection until the lease would have lapsed anyway.
          return Date.now() - renewedAt < this.o.leaseMs ? undefined : false;
        });
      if (ok) renewedAt = Date.now();
      if (ok !== false) return;
      this.holding = false;
      this.stopped = true;
      this.log.error('gateway lease lost; disconnecting from Discord');
      await h.lost();
    };
    const schedule = () => {
      if (this.stopped) return;
      this.timer = setTimeout(
        () => {
          this.busy = tick()
            .catch((err: unknown) => this.log.error({ err }, 'gateway lease step failed'))
            .finally(schedule);
        },
        this.holding ? this.o.renewMs : this.o.pollMs,
      );
    };
    this.busy = tick()
      .catch((err: unknown) => this.log.error({ err }, 'gateway lease step failed'))
      .finally(schedule);
  }

  /** Stops competing and frees the lease at once, so a standby need not wait for it to lapse. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.busy;
    if (this.holding) {
      this.holding = false;
      await this.store.release(this.o.key, this.holder).catch(() => undefined);
    }
  }
}
