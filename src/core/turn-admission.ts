// Admission of a turn: the session's FIFO (bounded), the global bound on running turns, and the
// store-backed session lock. Whatever runs inside gets all three and gives them back afterwards;
// a refused message is told so in its thread.
import type { Logger } from '../log/logger.ts';
import type { IncomingMessage } from '../model/incoming.ts';
import { sessionKey, type ThreadRef } from '../model/thread-ref.ts';
import type { HeldLock } from '../store/session-lock.ts';
import { settlesWithin } from '../util/deadline.ts';
import { KeyedQueue } from '../util/keyed-queue.ts';
import { type FairClaim, type FairRelease, FairSlots } from './fair-slots.ts';
import { messages } from './messages.ts';
import type { ThreadOutput } from './thread-output.ts';
import type { Admitted, TurnEnv, TurnInput, TurnOutcome } from './turn-types.ts';

export type TurnWork = (a: Admitted) => Promise<TurnOutcome>;

/** A question deleted by its asker: the mark lasts longer than any wait for a slot. */
const WITHDRAWN_TTL_MS = 3_600_000;

function withdrawnKey(ref: ThreadRef, messageId: string): string {
  return `${ref.platform}:${ref.projectId}:withdrawn:${messageId}`;
}

/** A question between its arrival and its slot; `leave` takes it out of the slot queue. */
interface Waiting {
  withdrawn: boolean;
  leave?: (() => void) | undefined;
}

/** Whose turn it is for fair admission, and where its calls count their tokens. */
export interface Fairness {
  claim: FairClaim;
  spent: { tokens: number };
}

const ANONYMOUS: Fairness = {
  claim: { channel: '', person: '', weight: 1 },
  spent: { tokens: 0 },
};

export class TurnAdmission {
  private readonly env: TurnEnv;
  private readonly queue: KeyedQueue;
  private readonly slots: FairSlots;
  private readonly running = new Set<Promise<TurnOutcome>>();
  /** Questions not yet in a slot, by platform and message id. */
  private readonly waiting = new Map<string, Waiting>();
  private closing = false;

  constructor(env: TurnEnv) {
    this.env = env;
    this.queue = new KeyedQueue(env.o.maxQueuedPerSession);
    this.slots = new FairSlots({
      slots: env.o.maxConcurrentTurns,
      mode: env.o.admission ?? 'fifo',
      estimateTokens: env.o.turnEstimateTokens ?? 2000,
      shared: env.d.fairCounters,
      forgetIdleMs: env.o.forgetIdleMs,
      onSharedError: (err) =>
        env.d.log.warn({ err }, 'shared fair-admission counters failed; this step used our own'),
    });
  }

  /** Turns waiting for a slot (their thread opened, their place shown). */
  get waitingForSlot(): number {
    return this.slots.waiting;
  }

  /** Messages waiting or running, over all sessions. */
  get pending(): number {
    return this.queue.size;
  }

  /** Stops taking messages and waits (bounded) for queued and running turns to finish. */
  async drain(timeoutMs: number): Promise<boolean> {
    this.closing = true;
    return settlesWithin(Promise.allSettled([...this.running]), timeoutMs);
  }

  /**
   * The asker deleted the question: if it has not started it leaves the queue (here at once; on
   * another worker when it looks next, through the store's mark) and its notice goes.
   */
  async withdraw(ref: ThreadRef, messageId: string): Promise<boolean> {
    const marks = this.env.d.withdrawals;
    await marks
      ?.claim(withdrawnKey(ref, messageId), 'deleted', WITHDRAWN_TTL_MS)
      .catch((err: unknown) => this.env.d.log.warn({ err }, 'could not mark a withdrawn question'));
    const w = this.waiting.get(`${ref.platform}:${messageId}`);
    if (!w) return false;
    w.withdrawn = true;
    w.leave?.();
    return true;
  }

  private async markedWithdrawn(msg: IncomingMessage): Promise<boolean> {
    const marks = this.env.d.withdrawals;
    if (!marks) return false;
    const at = await marks.holder(withdrawnKey(msg.ref, msg.messageId)).catch(() => undefined);
    return at !== undefined;
  }

  /** Turns that would start before the one that claimed with `claim`, while it waits. */
  ahead(claim: FairClaim): number | undefined {
    return this.slots.ahead(claim);
  }

  /**
   * Queues `work` for the message's session; it runs in a slot (given fairly by `claim`, its
   * tokens read from `spent` at the end), under the session lock.
   */
  admit(
    msg: IncomingMessage,
    out: ThreadOutput,
    input: TurnInput,
    work: TurnWork,
    fair: Fairness = ANONYMOUS,
  ): Promise<TurnOutcome> {
    const { d, o } = this.env;
    const key = sessionKey(msg.ref);
    const log = d.log.child({
      trace_id: msg.traceId,
      platform: msg.ref.platform,
      session: key,
    });
    if (this.closing) {
      return this.refuse(out, log, messages.shuttingDown, 'shutting_down');
    }
    const enqueued = performance.now();
    const id = `${msg.ref.platform}:${msg.messageId}`;
    const waiting: Waiting = { withdrawn: false };
    this.waiting.set(id, waiting);
    const queued = this.queue.push(key, () =>
      this.inSlot({ msg, out, key, log, input }, { enqueued, waiting }, work, fair),
    );
    if (!queued) {
      log.warn({ pending: this.queue.pending(key) }, 'session queue full; message refused');
      d.metrics.errors.inc({ kind: 'queue_full' });
      this.waiting.delete(id);
      return this.refuse(out, log, messages.queueFull(o.maxQueuedPerSession), 'queue_full');
    }
    d.metrics.queueDepth.set(this.queue.size);
    log.debug({ pending: this.queue.pending(key) }, 'message queued');
    this.running.add(queued);
    void queued.finally(() => {
      this.running.delete(queued);
      if (this.waiting.get(id) === waiting) this.waiting.delete(id);
      d.metrics.queueDepth.set(this.queue.size);
    });
    return queued;
  }

  private async refuse(
    out: ThreadOutput,
    log: Logger,
    text: string,
    reason: 'queue_full' | 'shutting_down',
  ): Promise<TurnOutcome> {
    await out.reportError(text).catch((err: unknown) => {
      log.error({ err }, 'could not tell the user the message was refused');
    });
    return { status: 'rejected', reason };
  }

  /**
   * Shows a waiting turn's place as it moves, at most once per `everyMs`; stopped at its start.
   * Each look also asks whether the question was deleted on another process (`lookAgain`).
   */
  private showPlace(
    claim: FairClaim,
    out: ThreadOutput,
    everyMs: number,
    lookAgain: () => void,
  ): () => void {
    let shown: number | undefined;
    const tick = () => {
      lookAgain();
      const ahead = this.slots.ahead(claim);
      if (ahead === undefined || ahead === shown || (shown === undefined && ahead === 0)) return;
      shown = ahead;
      void out.showStatus('thinking', messages.queued(ahead));
    };
    // First look on the next turn of the event loop: a burst's arrivals are all queued by then,
    // so their places are worked out once, not once per arrival.
    const first = setImmediate(tick);
    const timer = setInterval(tick, everyMs);
    timer.unref();
    return () => {
      clearImmediate(first);
      clearInterval(timer);
    };
  }

  /** The slot, or undefined when the question was withdrawn while it waited. */
  private async slotFor(
    a: Omit<Admitted, 'lock'>,
    waiting: Waiting,
    fair: Fairness,
  ): Promise<FairRelease | undefined> {
    const { o } = this.env;
    if (waiting.withdrawn || (await this.markedWithdrawn(a.msg))) return undefined;
    const granted = this.slots.acquire(fair.claim);
    const left = new Promise<undefined>((resolve) => {
      waiting.leave = () => {
        if (this.slots.withdraw(fair.claim)) resolve(undefined);
      };
    });
    const lookAgain = () =>
      void this.markedWithdrawn(a.msg).then((gone) => {
        if (gone) waiting.leave?.();
      });
    const stopNotice = o.queueNoticeMs
      ? this.showPlace(fair.claim, a.out, o.queueNoticeMs, lookAgain)
      : undefined;
    const release = await Promise.race([granted, left]);
    stopNotice?.();
    waiting.leave = undefined;
    return release;
  }

  private async inSlot(
    a: Omit<Admitted, 'lock'>,
    at: { enqueued: number; waiting: Waiting },
    work: TurnWork,
    fair: Fairness,
  ): Promise<TurnOutcome> {
    const { d, o } = this.env;
    const { msg, out, log } = a;
    const { enqueued, waiting } = at;
    const release = await this.slotFor(a, waiting, fair);
    if (!release) {
      log.info('question deleted while it waited; it left the queue');
      await out.withdraw().catch((err: unknown) => log.warn({ err }, 'could not clear a notice'));
      out.close();
      return { status: 'rejected', reason: 'withdrawn' };
    }
    d.metrics.queueWaitSeconds.observe(
      { platform: msg.ref.platform },
      (performance.now() - enqueued) / 1000,
    );
    d.metrics.turnsInFlight.inc();
    let lock: HeldLock | undefined;
    try {
      try {
        lock = await d.state.lock(msg.ref, o.turnTimeoutMs);
      } catch (err) {
        log.error({ err }, 'could not get the session lock');
        d.metrics.errors.inc({ kind: 'session_busy' });
        await out.reportError(messages.sessionBusy).catch(() => undefined);
        return { status: 'failed', code: 'session_busy', userMessage: messages.sessionBusy };
      }
      return await work({ ...a, lock });
    } finally {
      await lock
        ?.release()
        .catch((err: unknown) => log.warn({ err }, 'could not release session lock'));
      out.close();
      d.metrics.turnsInFlight.dec();
      release(fair.spent.tokens);
    }
  }
}
