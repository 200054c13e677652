// Token budgets (ARCHITECTURE.md, "Sharing the GPU"): per person, channel and project, per UTC day
// and calendar month, from config (sharing.budgets) and, for a channel, its settings — which can
// only tighten what the config allows. Checked when a question is admitted; compression inside an
// admitted turn is never refused, so a thread always stays inside the window.
import type { IncomingMessage } from '../model/incoming.ts';
import type { Store } from '../store/store.ts';
import { type UsageScope, usageDay } from '../store/usage-ledger.ts';
import type { ChannelSettings } from './channel-settings.ts';
import { usageKeys } from './model-call-tags.ts';
import type { UsageAccounting } from './usage-accounting.ts';

export type Period = 'daily' | 'monthly';

/** Tokens per UTC day and calendar month; 0 = none. */
export interface Budget {
  daily: number;
  monthly: number;
}

/** `sharing.budgets` in config (src/config/sharing-config.ts holds its schema). */
export interface BudgetSettings {
  person: Budget;
  channel: Budget;
  project: Budget;
  people: Readonly<Record<string, Budget>>;
  channels: Readonly<Record<string, Budget>>;
  projects: Readonly<Record<string, Budget>>;
  warnAt: number;
}

export interface BudgetHit {
  scope: UsageScope;
  period: Period;
  used: number;
  limit: number;
  /** When the period starts again (ms since the epoch, UTC). */
  resetsAt: number;
}

export type BudgetVerdict =
  | { status: 'ok' }
  | { status: 'warn'; hit: BudgetHit }
  | { status: 'over'; hit: BudgetHit };

export interface BudgetGuardOptions {
  budgets: BudgetSettings;
  /** Person keys (`platform:user`) not held to budgets. */
  exempt: ReadonlySet<string>;
  /** The platform's own admins (workspace admins, server managers) are not held to budgets either. */
  platformAdminsExempt?: boolean | undefined;
  usage: UsageAccounting;
  /**
   * Where a warning given is marked, so each budget warns once per period across every process
   * (an atomic set-if-absent that lasts until the period resets); absent: once per process.
   */
  marks?: Pick<Store, 'claim'> | undefined;
  now?: () => number;
}

const SCOPES: readonly UsageScope[] = ['person', 'channel', 'project'];
const PERIODS: readonly Period[] = ['daily', 'monthly'];

/** The smaller of two budgets where both are set (0 = none). */
function tighter(a: number, b: number): number {
  if (a === 0) return b;
  if (b === 0) return a;
  return Math.min(a, b);
}

function periodOf(period: Period, now: number): { from: string; to: string; resetsAt: number } {
  const d = new Date(now);
  const today = usageDay(d);
  if (period === 'daily') {
    return {
      from: today,
      to: today,
      resetsAt: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1),
    };
  }
  return {
    from: `${today.slice(0, 8)}01`,
    to: today,
    resetsAt: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1),
  };
}

export class BudgetGuard {
  private readonly o: BudgetGuardOptions;
  private readonly now: () => number;
  /** Warnings given here (all of them without `marks`, else those the store could not mark). */
  private readonly warned = new Set<string>();

  constructor(o: BudgetGuardOptions) {
    this.o = o;
    this.now = o.now ?? Date.now;
  }

  /** The budgets of a question's asker, channel and project. */
  limits(
    msg: Pick<IncomingMessage, 'ref' | 'principal'>,
    settings: Pick<ChannelSettings, 'dailyTokenBudget' | 'monthlyTokenBudget'> | undefined,
  ): Record<UsageScope, { id: string; budget: Budget }> {
    const b = this.o.budgets;
    const k = usageKeys(msg);
    const channel = b.channels[k.channel] ?? b.channel;
    return {
      person: { id: k.person, budget: b.people[k.person] ?? b.person },
      channel: {
        id: k.channel,
        budget: {
          daily: tighter(channel.daily, settings?.dailyTokenBudget ?? 0),
          monthly: tighter(channel.monthly, settings?.monthlyTokenBudget ?? 0),
        },
      },
      project: { id: k.project, budget: b.projects[k.project] ?? b.project },
    };
  }

  /**
   * Over a budget (the first found: person, channel, project; day before month), near one, or
   * fine. `isAdmin` asks the platform whether the asker is its admin, only once a budget is hit.
   */
  async check(
    msg: Pick<IncomingMessage, 'ref' | 'principal'>,
    settings: Pick<ChannelSettings, 'dailyTokenBudget' | 'monthlyTokenBudget'> | undefined,
    isAdmin?: () => Promise<boolean>,
  ): Promise<BudgetVerdict> {
    const k = usageKeys(msg);
    if (this.o.exempt.has(k.person)) return { status: 'ok' };
    const { over, near } = await this.hits(msg, settings);
    if (!over && near.length === 0) return { status: 'ok' };
    // Asked only now, and before a warning is marked: an admin's question uses up no warning.
    // A platform that cannot say holds the asker to the budget.
    if (this.o.platformAdminsExempt && isAdmin && (await isAdmin().catch(() => false))) {
      return { status: 'ok' };
    }
    if (over) return { status: 'over', hit: over };
    for (const n of near) {
      if (await this.firstWarning(n.id, n.hit.scope, n.hit.period, n.from)) {
        return { status: 'warn', hit: n.hit };
      }
    }
    return { status: 'ok' };
  }

  /** The first budget used up, else the budgets past the warning share, in order. */
  private async hits(
    msg: Pick<IncomingMessage, 'ref' | 'principal'>,
    settings: Pick<ChannelSettings, 'dailyTokenBudget' | 'monthlyTokenBudget'> | undefined,
  ): Promise<{ over?: BudgetHit; near: { hit: BudgetHit; id: string; from: string }[] }> {
    const limits = this.limits(msg, settings);
    const now = this.now();
    const near: { hit: BudgetHit; id: string; from: string }[] = [];
    for (const scope of SCOPES) {
      for (const period of PERIODS) {
        const limit = limits[scope].budget[period];
        if (limit === 0) continue;
        const p = periodOf(period, now);
        const t = await this.o.usage.totals(scope, limits[scope].id, p.from, p.to);
        // A ledger that failed just now: budgets pause (the accounting logged it).
        if (!this.o.usage.enforcing) return { near: [] };
        const used = t.prompt + t.completion;
        const hit = { scope, period, used, limit, resetsAt: p.resetsAt };
        if (used >= limit) return { over: hit, near };
        if (used >= this.o.budgets.warnAt * limit)
          near.push({ hit, id: limits[scope].id, from: p.from });
      }
    }
    return { near };
  }

  /** Whether this is the budget's first warning in its period: the store's mark, else ours. */
  private async firstWarning(
    id: string,
    scope: UsageScope,
    period: Period,
    from: string,
  ): Promise<boolean> {
    // Starts with the channel's or project's key, so erasing a project erases its marks.
    const key = `${id}:budget-warned:${scope}:${period}:${from}`;
    const marks = this.o.marks;
    if (marks) {
      const ttl = Math.max(1000, periodOf(period, this.now()).resetsAt - this.now() + 60_000);
      const first = await marks.claim(key, 'warned', ttl).catch(() => undefined);
      if (first !== undefined) return first;
    }
    if (this.warned.has(key)) return false;
    this.warned.add(key);
    return true;
  }
}

const WHOSE: Record<UsageScope, string> = {
  person: 'your',
  channel: "this channel's",
  project: "this workspace's",
};

function when(at: number): string {
  return `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

const n = (v: number) => v.toLocaleString('en-US');

/** What the asker is told, privately. */
export const budgetMessages = {
  over: (h: BudgetHit) =>
    `I can't answer this one: ${WHOSE[h.scope]} ${h.period} token budget is used up (${n(h.used)} of ${n(h.limit)} tokens). It resets ${when(h.resetsAt)}.`,
  warn: (h: BudgetHit) =>
    `Heads-up: ${WHOSE[h.scope]} ${h.period} token budget is ${Math.floor((h.used / h.limit) * 100)} % used (${n(h.used)} of ${n(h.limit)} tokens); it resets ${when(h.resetsAt)}.`,
};
