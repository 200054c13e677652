// Interactivity state: trigger ids (3 s, single use), open modals, response_url hooks of slash
// commands and the ephemeral messages people were shown.
import { randomBytes } from 'node:crypto';
import { slackId } from './event-envelope.ts';
import type { EphemeralMessage, OpenedView, ResponseUrlPost } from './types.ts';

// Slack: "trigger_id expires in 3 seconds"; a response_url takes 5 posts within 30 minutes.
const TRIGGER_LIFETIME_MS = 3000;
const RESPONSE_URL_LIFETIME_MS = 30 * 60_000;
const RESPONSE_URL_USES = 5;

interface Trigger {
  userId: string;
  /** The workspace the payload carrying the trigger came from: a modal opened with it is that team's. */
  teamId?: string | undefined;
  issuedAt: number;
  used: boolean;
}

export interface StoredView {
  id: string;
  userId: string;
  triggerId: string;
  /** The view object as views.open / views.update answer it. */
  view: Record<string, unknown>;
  open: boolean;
  updates: number;
}

export interface ResponseHook {
  url: string;
  channel: string;
  user: string;
  issuedAt: number;
  uses: number;
  /** The ephemeral message a block action came from: replace_original/delete_original act on it. */
  ephemeralTs?: string;
  /** The (non-ephemeral) message a block action came from: replace_original/delete_original act on it. */
  messageTs?: string;
}

export class Interactivity {
  triggerLifetimeMs = TRIGGER_LIFETIME_MS;
  readonly views = new Map<string, StoredView>();
  readonly responses: ResponseUrlPost[] = [];
  readonly ephemerals: EphemeralMessage[] = [];
  readonly #triggers = new Map<string, Trigger>();
  readonly #hooks = new Map<string, ResponseHook>();

  /** A trigger id shaped like Slack's (`<digits>.<digits>.<hex>`). */
  newTrigger(userId: string, teamId?: string): string {
    const id = `${Date.now()}${randomDigits(3)}.${randomDigits(10)}.${randomBytes(16).toString('hex')}`;
    this.#triggers.set(id, { userId, teamId, issuedAt: Date.now(), used: false });
    return id;
  }

  /** Exchanges a trigger for its user, or names Slack's error for it. */
  takeTrigger(id: string): { userId: string; teamId?: string | undefined } | { error: string } {
    const t = this.#triggers.get(id);
    if (t === undefined) return { error: 'invalid_trigger_id' };
    if (t.used) return { error: 'exchanged_trigger_id' };
    if (Date.now() - t.issuedAt > this.triggerLifetimeMs) return { error: 'expired_trigger_id' };
    t.used = true;
    return { userId: t.userId, teamId: t.teamId };
  }

  newResponseUrl(
    origin: string,
    teamId: string,
    channel: string,
    user: string,
    ephemeralTs?: string,
    messageTs?: string,
  ): string {
    const path = `/commands/${teamId}/${randomDigits(13)}/${randomBytes(12).toString('base64url')}`;
    const url = `${origin}${path}`;
    this.#hooks.set(path, {
      url,
      channel,
      user,
      issuedAt: Date.now(),
      uses: 0,
      ...(ephemeralTs === undefined ? {} : { ephemeralTs }),
      ...(messageTs === undefined ? {} : { messageTs }),
    });
    return url;
  }

  /** The hook at this path if it may still be used, else Slack's error for it. */
  useHook(path: string): ResponseHook | { error: 'expired_url' | 'used_url' } {
    const hook = this.#hooks.get(path);
    if (hook === undefined || Date.now() - hook.issuedAt > RESPONSE_URL_LIFETIME_MS) {
      return { error: 'expired_url' };
    }
    if (hook.uses >= RESPONSE_URL_USES) return { error: 'used_url' };
    hook.uses += 1;
    return hook;
  }

  newViewId(): string {
    return slackId('V');
  }

  publicViews(): OpenedView[] {
    return [...this.views.values()].map((v) => ({
      id: v.id,
      userId: v.userId,
      triggerId: v.triggerId,
      view: structuredClone(v.view),
      open: v.open,
      updates: v.updates,
    }));
  }
}

function randomDigits(n: number): string {
  let out = '';
  for (const b of randomBytes(n)) out += String(b % 10);
  return out;
}
