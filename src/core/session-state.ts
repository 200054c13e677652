// What the core remembers about a conversation besides its history, the same way for every
// platform: whether the bot takes part in it, which deliveries it has seen, who holds its lock,
// and how to forget it.
import type { Ingestor } from '../attachments/ingest.ts';
import type { ContextManager } from '../memory/context-manager.ts';
import { applyMessageChange } from '../memory/thread-messages.ts';
import { ThreadmindError } from '../model/errors.ts';
import { sessionKey, sessionOwner, type ThreadRef } from '../model/thread-ref.ts';
import type { SessionHistory } from '../store/session-history.ts';
import type { HeldLock, SessionLock } from '../store/session-lock.ts';
import type { Store } from '../store/store.ts';
import { messages } from './messages.ts';

/**
 * What claiming a delivery found: it is `new`; a repeat of one `queued` (or, where nothing is
 * handed off, handled); or a repeat of one still `pending`: claimed and not yet queued.
 */
export type Claim = 'new' | 'queued' | 'pending';

/** The holder of a delivery claim made where nothing is handed off, and of a queued marker. */
const SEEN = 'seen';
/** The holder of a handed-off delivery's claim (`confirmClaims` extends it once queued). */
export const PENDING_CLAIM = 'pending';
const PENDING = PENDING_CLAIM;

export interface SessionStateOptions {
  store: Store;
  history: SessionHistory;
  memory: Pick<ContextManager, 'forget' | 'markSummaryStale'>;
  lock: SessionLock;
  ingestor?: Pick<Ingestor, 'removeOwner'> | undefined;
  /** How long a delivery is remembered: longer than a platform retries (Slack: about 5 minutes). */
  dedupeTtlMs: number;
}

export class SessionState {
  private readonly o: SessionStateOptions;

  constructor(o: SessionStateOptions) {
    this.o = o;
  }

  async isParticipating(ref: ThreadRef): Promise<boolean> {
    const key = sessionKey(ref);
    return (
      (await this.o.store.kv.get(`participating:${key}`)) === true ||
      (await this.o.history.exists(key))
    );
  }

  async participate(ref: ThreadRef): Promise<void> {
    await this.o.store.kv.set(`participating:${sessionKey(ref)}`, true);
  }

  /**
   * `new` the first time any of these delivery keys is seen (in the store, so every replica agrees);
   * all keys are claimed: a retried event and the same message under another event both count.
   * `pendingMs` (where messages are handed off): the claim lasts only that long until
   * `confirmClaims` makes it last the full de-duplication window, so a process killed between
   * claiming and queuing does not leave the message claimed for good: a redelivery or a resumed
   * gateway's replay takes it after that. A repeat is then `queued` when the first copy was queued,
   * `pending` while it is still being queued (or was lost with its process).
   */
  async claimOnce(keys: readonly string[], pendingMs?: number): Promise<Claim> {
    // Every key is claimed (a repeat under any of them still claims the others), all at once: the
    // store's client sends the claims of a burst's deliveries together (one round trip).
    const holder = pendingMs === undefined ? SEEN : PENDING;
    const ttl = pendingMs ?? this.o.dedupeTtlMs;
    const claimed = await Promise.all(
      keys.map((key) => this.o.store.claim(`seen:${key}`, holder, ttl)),
    );
    if (claimed.every(Boolean)) return 'new';
    if (pendingMs === undefined) return 'queued';
    const queued = await Promise.all(
      keys.filter((_, i) => !claimed[i]).map((key) => this.o.store.holder(`queued:${key}`)),
    );
    return queued.some((h) => h !== undefined) ? 'queued' : 'pending';
  }

  /** The message is queued: its claims last the full de-duplication window, marked queued. */
  async confirmClaims(keys: readonly string[]): Promise<void> {
    const ttl = this.o.dedupeTtlMs;
    await Promise.all(
      keys.flatMap((key) => [
        this.o.store.renew(`seen:${key}`, PENDING, ttl),
        this.o.store.claim(`queued:${key}`, SEEN, ttl),
      ]),
    );
  }

  lock(ref: ThreadRef, waitMs: number): Promise<HeldLock> {
    return this.o.lock.acquire(sessionKey(ref), waitMs);
  }

  /**
   * Applies an edit (`text`) or a deletion of a thread message to the session's history and archive;
   * a change in archived turns makes the summary stale. Call it under the session lock.
   */
  async applyChange(ref: ThreadRef, messageId: string, text: string | undefined): Promise<boolean> {
    const key = sessionKey(ref);
    const live = applyMessageChange(await this.o.history.load(key), messageId, text);
    if (live.changed) await this.o.history.save(key, live.messages);
    const archived = applyMessageChange(await this.o.history.archived(key), messageId, text);
    if (archived.changed) {
      await this.o.history.replaceArchive(key, archived.messages);
      await this.o.memory.markSummaryStale(key);
    }
    return live.changed || archived.changed;
  }

  /** Forgets the session: history, archive, counters, participation and the files posted in it. */
  async forget(ref: ThreadRef): Promise<void> {
    const key = sessionKey(ref);
    await this.o.history.clear(key);
    await this.o.memory.forget(key);
    await this.o.store.kv.delete(`participating:${key}`);
    await this.o.ingestor?.removeOwner(sessionOwner(ref));
  }
}

/** The error a turn ends with when its session lock was lost mid-answer. */
export function lockLostError(key: string): ThreadmindError {
  return new ThreadmindError('lock_lost', `lost the lock on ${key}`, messages.lockLost);
}
