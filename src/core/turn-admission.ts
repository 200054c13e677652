// Admission of a turn: the session's FIFO (bounded), the global bound on running turns, and the
// store-backed session lock. Whatever runs inside gets all three and gives them back afterwards;
// a refused message is told so in its thread.
import type { Logger } from '../log/logger.ts';
import type { IncomingMessage } from '../model/incoming.ts';
import { sessionKey } from '../model/thread-ref.ts';
import type { HeldLock } from '../store/session-lock.ts';
import { settlesWithin } from '../util/deadline.ts';
import { KeyedQueue } from '../util/keyed-queue.ts';
import { type FairClaim, FairSlots } from './fair-slots.ts';
import { messages } from './messages.ts';
import type { ThreadOutput } from './thread-output.ts';
import type { Admitted, TurnEnv, TurnInput, TurnOutcome } from './turn-types.ts';

export type TurnWork = (a: Admitted) => Promise<TurnOutcome>;

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

  /** Messages waiting or running, over all sessions. */
  get pending(): number {
    return this.queue.size;
  }

  /** Stops taking messages and waits (bounded) for queued and running turns to finish. */
  async drain(timeoutMs: number): Promise<boolean> {
    this.closing = true;
    return settlesWithin(Promise.allSettled([...this.running]), timeoutMs);
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
    const queued = this.queue.push(key, () =>
      this.inSlot({ msg, out, key, log, input }, enqueued, work, fair),
    );
    if (!queued) {
      log.warn({ pending: this.queue.pending(key) }, 'session queue full; message refused');
      d.metrics.errors.inc({ kind: 'queue_full' });
      return this.refuse(out, log, messages.queueFull(o.maxQueuedPerSession), 'queue_full');
    }
    d.metrics.queueDepth.set(this.queue.size);
    log.debug({ pending: this.queue.pending(key) }, 'message queued');
    this.running.add(queued);
    void queued.finally(() => {
      this.running.delete(queued);
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

  /** Shows a waiting turn's place as it moves, at most once per `everyMs`; stopped at its start. */
  private showPlace(claim: FairClaim, out: ThreadOutput, everyMs: number): () => void {
    let shown: number | undefined;
    const tick = () => {
      const ahead = this.slots.ahead(claim);
      if (ahead === undefined || ahead === shown || (shown === undefined && ahead === 0)) return;
      shown = ahead;
      void out.showStatus('thinking', messages.queued(ahead));
    };
    tick();
    const timer = setInterval(tick, everyMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  private async inSlot(
    a: Omit<Admitted, 'lock'>,
    enqueued: number,
    work: TurnWork,
    fair: Fairness,
  ): Promise<TurnOutcome> {
    const { d, o } = this.env;
    const { msg, out, log } = a;
    const granted = this.slots.acquire(fair.claim);
    const stopNotice = o.queueNoticeMs
      ? this.showPlace(fair.claim, out, o.queueNoticeMs)
      : undefined;
    const release = await granted;
    stopNotice?.();
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
