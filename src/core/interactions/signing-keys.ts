// The keys that sign action references. With THREADMIND_ENCRYPTION_KEY (handed in from the
// config), one key is derived from each configured key, so rotating that key rotates these too.
// Without it, a random key is kept in the store: created once by whichever replica gets there
// first (an atomic set-if-absent), read by every other one, and kept across restarts.
import { hkdfSync, randomBytes } from 'node:crypto';
import type { Store } from '../../store/store.ts';

/** Where the store keeps the random key. Not a project's key: erasing a project keeps it. */
export const SIGNING_KEY = 'interactions:signing-key';
/** A claim's lifetime must be finite; a century is "for as long as the store lives". */
const KEEP_MS = 100 * 365 * 24 * 60 * 60_000;

/** A key for action references only, derived from a configured encryption key. */
function derived(key: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', key, 'threadmind', 'action references v1', 32));
}

/**
 * The signing keys, loaded once: derived from `configured` when given, else the store's. The
 * returned function retries after a failed load (the store may come back).
 */
export function signingKeys(
  configured: readonly Buffer[] | undefined,
  store: Pick<Store, 'claim' | 'holder'>,
): () => Promise<readonly Buffer[]> {
  if (configured && configured.length > 0) {
    const keys = configured.map(derived);
    return () => Promise.resolve(keys);
  }
  let loading: Promise<readonly Buffer[]> | undefined;
  const load = async (): Promise<readonly Buffer[]> => {
    await store.claim(SIGNING_KEY, randomBytes(32).toString('base64'), KEEP_MS);
    const kept = await store.holder(SIGNING_KEY);
    if (!kept) throw new Error('the store holds no signing key for action references');
    return [Buffer.from(kept, 'base64')];
  };
  return () => {
    loading ??= load().catch((err: unknown) => {
      loading = undefined;
      throw err;
    });
    return loading;
  };
}
