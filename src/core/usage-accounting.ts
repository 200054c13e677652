// Every model call's tokens, booked per day (ARCHITECTURE.md, "Sharing the GPU"). The booking is
// fire-and-forget: the ledger failing never holds up an answer; it is logged, and budgets are not
// enforced until the ledger answers again (at most a minute later), which the log says too.
import type { UsageBooking } from '../llm/usage-meter.ts';
import type { Logger } from '../log/logger.ts';
import type { Metrics } from '../log/metrics.ts';
import {
  NO_USAGE,
  type UsageLedger,
  type UsageRow,
  type UsageScope,
  type UsageTotals,
  usageDay,
} from '../store/usage-ledger.ts';

/** How long budgets stay off after the ledger failed. */
export const LEDGER_PAUSE_MS = 60_000;

export interface UsageAccountingDeps {
  ledger: UsageLedger;
  metrics: Pick<Metrics, 'usageTokens'>;
  log: Logger;
  now?: () => number;
}

export class UsageAccounting {
  private readonly d: UsageAccountingDeps;
  private readonly now: () => number;
  private failedAt = Number.NEGATIVE_INFINITY;
  private readonly writes = new Set<Promise<void>>();

  constructor(d: UsageAccountingDeps) {
    this.d = d;
    this.now = d.now ?? Date.now;
  }

  /** The chat models' sink: books one call (never throws, never waits). */
  readonly book = (b: UsageBooking): void => {
    const { tag } = b;
    const labels = { project: tag.project, kind: b.kind };
    this.d.metrics.usageTokens.inc({ ...labels, direction: 'prompt' }, b.prompt);
    this.d.metrics.usageTokens.inc({ ...labels, direction: 'completion' }, b.completion);
    const write = this.d.ledger
      .add({
        day: usageDay(new Date(this.now())),
        ...{ project: tag.project, channel: tag.channel, person: tag.person },
        ...{ model: b.model, kind: b.kind, prompt: b.prompt, completion: b.completion },
      })
      .catch((err: unknown) => this.failed(err, 'could not book model usage'));
    this.writes.add(write);
    void write.finally(() => this.writes.delete(write));
  };

  /** Whether budgets can be trusted now (the ledger answered within the last minute). */
  get enforcing(): boolean {
    return this.now() - this.failedAt >= LEDGER_PAUSE_MS;
  }

  /** Tokens of `id` over `from`..`to`; on a ledger failure, none (and budgets pause). */
  async totals(scope: UsageScope, id: string, from: string, to: string): Promise<UsageTotals> {
    try {
      return await this.d.ledger.totals(scope, id, from, to);
    } catch (err) {
      this.failed(err, 'could not read model usage');
      return NO_USAGE;
    }
  }

  /** Every row of the days `from`..`to` (the usage report and its export). */
  rows(from: string, to: string, project?: string): Promise<UsageRow[]> {
    return this.d.ledger.rows(from, to, project);
  }

  /** Erasing a project: its usage rows go too (registered with the eraser; counts nothing). */
  readonly eraseProject = async (project: string): Promise<number> => {
    await this.settled();
    await this.d.ledger.eraseProject(project);
    return 0;
  };

  /** Waits for the bookings in flight (tests, shutdown). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.writes]);
  }

  async close(): Promise<void> {
    await this.settled();
    await this.d.ledger.close();
  }

  private failed(err: unknown, what: string): void {
    this.failedAt = this.now();
    this.d.log.error(
      { err, budgets_paused_ms: LEDGER_PAUSE_MS },
      `${what}; budgets are not enforced for the next minute`,
    );
  }
}
