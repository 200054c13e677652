// Where an owner's attachments live in the store. Only keyv get/set/delete are used, so the layout
// is the same on SQLite and Redis; the lock is a store lease (keyv has no atomic claim).
import type { Owner } from '../../model/thread-ref.ts';
import type { Store } from '../../store/store.ts';

/** `session:slack:T1:C1:1712345.678`: the kind is part of the key so kinds can never collide. */
export function ownerKey(owner: Owner): string {
  return `${owner.kind}:${owner.key}`;
}

export const keys = {
  /** AttachmentRecord[] in the order the files were added. */
  files: (owner: string) => `att:${owner}:files`,
  /** Chunk[] of one file (absent for files with nothing to search, such as images). */
  chunks: (owner: string, fileId: string) => `att:${owner}:chunks:${fileId}`,
  /** StoredVectors of one file's chunks, made by the embedder its record names. */
  vectors: (owner: string, fileId: string) => `att:${owner}:vectors:${fileId}`,
  /** Claim held while one replica embeds a file again for a new embedder. */
  embedding: (owner: string, fileId: string) => `att:${owner}:embedding:${fileId}`,
  /** Opaque token replaced on every change; replicas compare it to their cached index. */
  version: (owner: string) => `att:${owner}:version`,
  /** Claim held while the file list is rewritten. */
  lock: (owner: string) => `att:${owner}:lock`,
} as const;

/** A keyv set that must land: a store that refuses a write fails the operation. */
export async function write(store: Store, key: string, value: unknown): Promise<void> {
  if (!(await store.kv.set(key, value))) {
    throw new Error(`attachment index: the store did not accept ${key}`);
  }
}
