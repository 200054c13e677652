// AES-256-GCM sealing for secrets kept at rest (Slack installation tokens). Several keys may be
// given so a key can be rotated: the first seals, every one opens, and a value sealed with an old
// key says so (`stale`) so the caller can seal it again with the current one.
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createSecretKey,
  type KeyObject,
  randomBytes,
} from 'node:crypto';

const VERSION = 'tm1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

interface Key {
  id: string;
  key: KeyObject;
}

/** Parses `THREADMIND_ENCRYPTION_KEY`: comma-separated keys, each 32 bytes as base64 or 64 hex digits. */
export function parseEncryptionKeys(text: string): { keys: Buffer[]; problems: string[] } {
  const keys: Buffer[] = [];
  const problems: string[] = [];
  const parts = text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  parts.forEach((part, i) => {
    const bytes = /^[0-9a-fA-F]{64}$/.test(part)
      ? Buffer.from(part, 'hex')
      : /^[A-Za-z0-9+/_-]+={0,2}$/.test(part)
        ? Buffer.from(part, 'base64')
        : undefined;
    if (bytes?.length !== 32) {
      problems.push(
        `THREADMIND_ENCRYPTION_KEY: key ${i + 1} must be 32 random bytes as base64 or hex (e.g. \`openssl rand -base64 32\`)`,
      );
      return;
    }
    keys.push(bytes);
  });
  if (parts.length === 0) problems.push('THREADMIND_ENCRYPTION_KEY is empty');
  return { keys, problems };
}

/** What `open` found: the plaintext, and whether it was sealed with a key other than the current one. */
export interface Opened {
  plaintext: string;
  stale: boolean;
}

export class SecretBox {
  readonly #keys: Key[];

  /** `keys[0]` seals; all of them open. */
  constructor(keys: readonly Buffer[]) {
    if (keys.length === 0) throw new Error('SecretBox needs at least one key');
    this.#keys = keys.map((k) => {
      if (k.length !== 32) throw new Error('SecretBox keys are 32 bytes (AES-256)');
      // The id names the key without revealing it: a hash prefix, not the key's bytes.
      const id = createHash('sha256').update(k).digest('base64url').slice(0, 8);
      return { id, key: createSecretKey(k) };
    });
  }

  seal(plaintext: string, aad = ''): string {
    const current = this.#keys[0] as Key;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', current.key, iv);
    // The additional data binds a sealed value to its place (its store key): moved elsewhere, it will not open.
    cipher.setAAD(Buffer.from(aad));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [
      VERSION,
      current.id,
      iv.toString('base64url'),
      tag.toString('base64url'),
      body.toString('base64url'),
    ].join('.');
  }

  /** Throws when the value is not sealed by one of the keys, or was altered. */
  open(sealed: string, aad = ''): Opened {
    const [version, id, iv, tag, body] = sealed.split('.');
    if (
      version !== VERSION ||
      id === undefined ||
      iv === undefined ||
      tag === undefined ||
      body === undefined
    ) {
      throw new Error('not a sealed value');
    }
    const index = this.#keys.findIndex((k) => k.id === id);
    const key = this.#keys[index];
    if (key === undefined)
      throw new Error(`sealed with a key that is not configured (key id ${id})`);
    const tagBytes = Buffer.from(tag, 'base64url');
    if (tagBytes.length !== TAG_BYTES) throw new Error('not a sealed value');
    const decipher = createDecipheriv('aes-256-gcm', key.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(tagBytes);
    const plaintext = Buffer.concat([
      decipher.update(Buffer.from(body, 'base64url')),
      decipher.final(),
    ]).toString('utf8');
    return { plaintext, stale: index !== 0 };
  }
}
