// The person in the loop for the team's tools (ARCHITECTURE.md, "The team's tools"). A call that
// needs approval and has no grant posts a card (tool-approval-flow.ts) and ends the turn; the
// pending call lives in the Store, so a click on any worker, after a restart, decides it. Approved,
// the thread's turn resumes: a message in the core's words, on the asker's behalf, goes through the
// ordinary path (queued to any worker in split roles) and the model makes the call again, which a
// one-shot grant for exactly those arguments lets through. Denied or expired, the resumed turn is
// told it did not run. Grants: "always" is the channel setting `mcpAlwaysApproved` (listed and
// revocable in the settings form); "once" a Store key per session, tool and arguments.
import { createHash } from 'node:crypto';
import type { Logger } from '../log/logger.ts';
import type { ActionButton, Place } from '../model/interaction.ts';
import { channelKey, projectKey } from '../model/thread-ref.ts';
import type { ToolCallAsk, ToolGateDecision } from '../scope/scope.ts';
import type { Store } from '../store/store.ts';
import { type ChannelSettings, namesIn } from './channel-settings-schema.ts';
import { approvalTexts as t } from './tool-approval-texts.ts';

/** What the card's pending state keeps. */
export interface PendingApproval {
  call: Omit<ToolCallAsk, 'needsApproval'>;
  asker: string;
  /**
   * The asker's message the turn answered: the resumed turn goes by its id, an id of the
   * platform's own (thread reads order messages by it).
   */
  messageId: string;
}

interface Due {
  key: string;
  place: Place;
  data: PendingApproval;
  expiresAt: number;
  /** The card's message, to take its buttons away at the expiry (absent: told as a message). */
  cardId?: string;
}

export interface ToolApprovalsOptions {
  store: Pick<Store, 'kv' | 'claim' | 'release'>;
  ttlMs: number;
  /** Principals besides the asker who may decide (config `mcp.approvers`). */
  approvers: readonly string[];
  log: Logger;
  now?: () => number;
}

const DUE_KEY = 'mcp-approvals:due';
const ONCE_TTL_MS = 60 * 60_000;

export class ToolApprovals {
  readonly #o: ToolApprovalsOptions;
  /** Set by the conversation once its engine and ports exist. */
  buttons: ((place: Place, data: PendingApproval) => Promise<ActionButton[]>) | undefined;
  /** Posts the card; false where there is no surface, else the message's id when there is one. */
  post:
    | ((
        place: Place,
        card: PendingApproval,
        actions: ActionButton[],
        until: number,
      ) => Promise<false | { id: string | undefined }>)
    | undefined;
  /** Posts the core's words in the thread. */
  say: ((place: Place, markdown: string) => Promise<void>) | undefined;
  /** Puts the outcome's words in place of the card, without its buttons. */
  settle:
    | ((place: Place, cardId: string, data: PendingApproval, markdown: string) => Promise<void>)
    | undefined;
  /** Resumes the thread's turn with the core's words (approved, denied, expired). */
  resume:
    | ((place: Place, data: PendingApproval, text: string, dedupe: string) => Promise<void>)
    | undefined;

  constructor(o: ToolApprovalsOptions) {
    this.#o = o;
  }

  get ttlMs(): number {
    return this.#o.ttlMs;
  }

  #now(): number {
    return (this.#o.now ?? Date.now)();
  }

  #onceKey(place: Place, name: string, args: Record<string, unknown>): string {
    const h = createHash('sha256')
      .update(JSON.stringify([name, args]))
      .digest('base64url')
      .slice(0, 22);
    return `${channelKey(place.ref)}:mcp-once:${place.ref.sessionId}:${h}`;
  }

  /** Whether `who` may decide: the asker, or a principal config names (their id or a group of theirs). */
  mayDecide(who: string, groups: readonly string[], asker: string): boolean {
    return (
      who === asker ||
      this.#o.approvers.includes(who) ||
      groups.some((g) => this.#o.approvers.includes(g))
    );
  }

  /** The gate of one turn: grants let a call through, otherwise a card is posted and it waits. */
  gate(place: Place, asker: string, messageId: string, settings: ChannelSettings | undefined) {
    return async (call: ToolCallAsk): Promise<ToolGateDecision> => {
      if (!call.needsApproval) return { run: true };
      if (settings && namesIn(settings.mcpAlwaysApproved).includes(call.name)) return { run: true };
      const once = this.#onceKey(place, call.name, call.args);
      if (await this.#o.store.kv.get(once)) {
        await this.#o.store.kv.delete(once);
        return { run: true };
      }
      return this.#ask(place, asker, messageId, call);
    };
  }

  async #ask(
    place: Place,
    asker: string,
    messageId: string,
    call: ToolCallAsk,
  ): Promise<ToolGateDecision> {
    const { needsApproval: _, ...rest } = call;
    const data: PendingApproval = { call: rest, asker, messageId };
    const actions = (await this.buttons?.(place, data)) ?? [];
    const until = this.#now() + this.#o.ttlMs;
    const posted = actions.length > 0 ? await this.post?.(place, data, actions, until) : false;
    if (!posted) return { run: false, message: t.noSurface };
    const key = keyOf(actions[0]?.ref ?? '');
    const card = posted.id ? { cardId: posted.id } : {};
    await this.#due((list) => [...list, { key, place, data, expiresAt: until, ...card }]);
    this.#o.log.info({ tool: call.name }, 'tool call waits for approval');
    return { run: false, message: t.waiting(call.name) };
  }

  /** A decision is taken once (a click or the expiry, whichever comes first, on any worker). */
  async claimDecision(place: Place, key: string): Promise<boolean> {
    const ok = await this.#o.store.claim(
      `${projectKey(place.ref)}:mcp-decided:${key}`,
      'x',
      7 * 86_400_000,
    );
    if (ok) await this.#due((list) => list.filter((d) => d.key !== key));
    return ok;
  }

  async grantOnce(place: Place, data: PendingApproval): Promise<void> {
    await this.#o.store.kv.set(
      this.#onceKey(place, data.call.name, data.call.args),
      true,
      ONCE_TTL_MS,
    );
  }

  /** Approvals past their expiry: each told in its thread and to its turn, once. */
  async sweep(at = this.#now()): Promise<number> {
    const list = ((await this.#o.store.kv.get(DUE_KEY)) as Due[] | undefined) ?? [];
    let n = 0;
    for (const d of list.filter((x) => x.expiresAt <= at)) {
      if (!(await this.claimDecision(d.place, d.key))) continue;
      n++;
      await this.#tellExpired(d);
      await this.resume?.(
        d.place,
        d.data,
        t.resumeRefused(d.data.call.name, 'expired'),
        `mcp-expired:${d.key}`,
      );
    }
    return n;
  }

  /** The card says it expired and loses its buttons; without its id, the thread is told. */
  async #tellExpired(d: Due): Promise<void> {
    const words = t.expired(d.data.call.name);
    try {
      if (d.cardId && this.settle) await this.settle(d.place, d.cardId, d.data, words);
      else await this.say?.(d.place, words);
    } catch (err) {
      this.#o.log.warn({ err }, 'could not tell the thread an approval expired');
      await this.say?.(d.place, words).catch(() => undefined);
    }
  }

  /** Read-modify-write of the due list under a short claim (replicas may add at once). */
  async #due(change: (list: Due[]) => Due[]): Promise<void> {
    const lock = `${DUE_KEY}:lock`;
    for (let i = 0; i < 50; i++) {
      if (await this.#o.store.claim(lock, 'x', 2000)) {
        try {
          const list = ((await this.#o.store.kv.get(DUE_KEY)) as Due[] | undefined) ?? [];
          await this.#o.store.kv.set(DUE_KEY, change(list));
        } finally {
          await this.#o.store.release(lock, 'x').catch(() => undefined);
        }
        return;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    this.#o.log.warn('approval list busy; an expiry may be told late');
  }
}

/** The pending state's key inside an action reference (`t1.flow.step.tag.key.exp.mac`). */
export function keyOf(ref: string): string {
  return ref.split('.')[4] ?? ref;
}
