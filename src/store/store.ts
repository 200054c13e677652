import type Keyv from 'keyv';
import type { LeaseBackend } from './lease-backend.ts';

/**
 * The bot's state. `kv` is plain keyv (history, session metadata); claims are the one operation keyv
 * cannot express atomically — "set if absent, with a TTL" — which event de-duplication and
 * per-session locks need to be safe across replicas.
 */
export interface Store {
  readonly kind: 'sqlite' | 'redis';
  readonly kv: Keyv;
  /** Leases with fencing tokens (use them through `Leases`, lease.ts). */
  readonly leases: LeaseBackend;
  /** Sets `key` to `holder` for `ttlMs` unless someone holds it; true when this call got it. */
  claim(key: string, holder: string, ttlMs: number): Promise<boolean>;
  /** Extends a claim this holder still has; false when it was lost. */
  renew(key: string, holder: string, ttlMs: number): Promise<boolean>;
  /** Frees a claim only if `holder` still has it. */
  release(key: string, holder: string): Promise<void>;
  /** Who holds the claim now, if anyone. */
  holder(key: string): Promise<string | undefined>;
  /**
   * Deletes every `kv` key that starts with `prefix` (exactly: case and wildcard characters in it
   * match only themselves), except the keys in `keep`; how many went. keyv has no prefix scan, and
   * erasing a project needs one.
   */
  deletePrefix(prefix: string, keep?: readonly string[]): Promise<number>;
  /** Frees every claim whose key starts with `prefix`, whoever holds it; how many went. */
  deleteClaims(prefix: string): Promise<number>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
