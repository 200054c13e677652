// Action references: what a button, a form or a modal carries back to the core. Small (a Discord
// custom_id holds 100 characters), versioned and signed, they name the flow, the step, the project
// (a 4-character tag, and the signature covers the whole project key) and the Store key of the
// pending state; everything bigger lives in the Store. A reference that is malformed, altered,
// forged or made for another project is refused before anything is read.
//
//   t1.<flow>.<step>.<project tag>.<pending key>.<expiry, base-36 seconds>.<signature>
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ACTION_REF_VERSION as VERSION } from '../../model/interaction.ts';
import { projectKey, type ThreadRef } from '../../model/thread-ref.ts';

const NAME = /^[a-z]{1,12}$/;
const KEY = /^[A-Za-z0-9_-]{12}$/;
const TAG = /^[A-Za-z0-9_-]{4}$/;
const EXPIRY = /^[0-9a-z]{1,9}$/;
const SIGNATURE = /^[A-Za-z0-9_-]{16}$/;
/** 12 bytes of HMAC-SHA256: 96 bits against forgery, and the whole reference stays near 70 characters. */
const SIGNATURE_BYTES = 12;

/** What a reference names. `expiresAt` is epoch ms, to the second. */
export interface ActionRef {
  flow: string;
  step: string;
  /** The pending state's key under the project (pending-flows.ts). */
  key: string;
  expiresAt: number;
}

export type Project = Pick<ThreadRef, 'platform' | 'projectId'>;

/** Why a reference was refused; `expired` is told as such, every other reason as a refusal. */
export type RefRefusal = 'malformed' | 'forged' | 'other-project' | 'expired';

export type RefCheck = { ok: true; ref: ActionRef } | { ok: false; reason: RefRefusal };

/** A new random pending key (72 bits). */
export function newPendingKey(): string {
  return randomBytes(9).toString('base64url');
}

function tagOf(project: Project): string {
  return createHash('sha256').update(projectKey(project)).digest('base64url').slice(0, 4);
}

export class ActionRefs {
  private readonly keys: () => Promise<readonly Buffer[]>;
  private readonly now: () => number;

  /** `keys`: the first signs, every one verifies (a rotated key keeps recent buttons working). */
  constructor(keys: () => Promise<readonly Buffer[]>, now: () => number = Date.now) {
    this.keys = keys;
    this.now = now;
  }

  private static sign(key: Buffer, body: string, project: Project): Buffer {
    return createHmac('sha256', key)
      .update(`${body}\n${projectKey(project)}`)
      .digest()
      .subarray(0, SIGNATURE_BYTES);
  }

  async make(project: Project, ref: ActionRef): Promise<string> {
    if (!NAME.test(ref.flow) || !NAME.test(ref.step) || !KEY.test(ref.key))
      throw new Error(`not a valid action reference: ${ref.flow}.${ref.step}.${ref.key}`);
    const [key] = await this.keys();
    if (!key) throw new Error('no key to sign action references with');
    const expiry = Math.ceil(ref.expiresAt / 1000).toString(36);
    const body = [VERSION, ref.flow, ref.step, tagOf(project), ref.key, expiry].join('.');
    return `${body}.${ActionRefs.sign(key, body, project).toString('base64url')}`;
  }

  /** Checks a reference that arrived from `project`. */
  async check(token: string, project: Project): Promise<RefCheck> {
    const parts = token.split('.');
    const [version, flow, step, tag, key, expiry, signature] = parts;
    if (
      parts.length !== 7 ||
      version !== VERSION ||
      !flow ||
      !NAME.test(flow) ||
      !step ||
      !NAME.test(step) ||
      !tag ||
      !TAG.test(tag) ||
      !key ||
      !KEY.test(key) ||
      !expiry ||
      !EXPIRY.test(expiry) ||
      !signature ||
      !SIGNATURE.test(signature)
    )
      return { ok: false, reason: 'malformed' };
    if (tag !== tagOf(project)) return { ok: false, reason: 'other-project' };
    const body = parts.slice(0, 6).join('.');
    const given = Buffer.from(signature, 'base64url');
    const genuine = (await this.keys()).some((k) =>
      timingSafeEqual(ActionRefs.sign(k, body, project), given),
    );
    if (!genuine) return { ok: false, reason: 'forged' };
    const expiresAt = Number.parseInt(expiry, 36) * 1000;
    if (expiresAt <= this.now()) return { ok: false, reason: 'expired' };
    return { ok: true, ref: { flow, step, key, expiresAt } };
  }

  /** The flow and step a well-formed reference names, unchecked (to word a refusal, never to act). */
  static peek(token: string): { flow: string; step: string } | undefined {
    const [version, flow, step] = token.split('.');
    return version === VERSION && flow && step && NAME.test(flow) && NAME.test(step)
      ? { flow, step }
      : undefined;
  }
}
