// What a store keeps for leases: who holds a key until when, and its generation, which goes up by
// one at every acquisition and so serves as a fencing token. See lease.ts for the primitive.

/** A run's right to write: the lease it was given and the generation it got. */
export interface Fence {
  lease: string;
  token: number;
}

/** A fenced write; `once` names a marker set with it, so the write happens at most once. */
export interface WriteGuard extends Fence {
  once?: string;
}

/** `fenced`: the token is no longer current; `repeated`: the `once` marker was already set. */
export type WriteOutcome = 'written' | 'fenced' | 'repeated';

/** How long a `once` marker stays: longer than any job is retried (a job's post records: a day too). */
export const ONCE_TTL_MS = 86_400_000;
/** A `once` marker is a claim with this holder (`Store.release(once, ONCE_HOLDER)` removes it). */
export const ONCE_HOLDER = 'written';

export interface LeaseBackend {
  /** Takes `key` for `ttlMs` unless another holder has it; the new generation, or undefined. */
  acquire(key: string, holder: string, ttlMs: number): Promise<number | undefined>;
  /** Extends the lease while `holder` still has it at generation `token`. */
  renew(key: string, holder: string, token: number, ttlMs: number): Promise<boolean>;
  release(key: string, holder: string, token: number): Promise<void>;
  /** The generation of the lease held now, if anyone holds it. */
  current(key: string): Promise<number | undefined>;
  /** Who holds it now and at which generation (operators and tests look). */
  holder(key: string): Promise<{ holder: string; token: number } | undefined>;
  /**
   * Writes `entries` into the store's kv (as `kv.set` would, without a TTL) only while `guard`'s
   * token is current and its `once` marker is unset, setting the marker in the same step.
   */
  writeFenced(
    entries: ReadonlyArray<readonly [string, unknown]>,
    guard: WriteGuard,
  ): Promise<WriteOutcome>;
  /** True when a `once` marker is set (the guarded write happened). */
  wrote(once: string): Promise<boolean>;
  /** Forgets the generations of the leases under `prefix` (an erased project's); a held one lapses. */
  forget(prefix: string): Promise<number>;
}
