// The emulator's workspace state: messages per channel, ts allocation and the stream lifecycle.
import type { SlackMessage, SlackReaction } from './types.ts';

export type StreamState = 'open' | 'stopped' | 'expired';

/** A message as stored; the extra fields stay internal and are projected away on read. */
export interface StoredMessage extends SlackMessage {
  app_id?: string;
  team?: string;
  client_msg_id?: string;
  /** The ts of the person's last edit (their message's `edited.ts`). */
  editedTs?: string;
  streamState?: StreamState;
  streamStartedAt?: number;
}

// Slack does not document the lifetime; streams are observed to die after roughly five minutes.
const DEFAULT_STREAM_LIFETIME_MS = 5 * 60_000;

export class MessageStore {
  streamLifetimeMs = DEFAULT_STREAM_LIFETIME_MS;
  readonly #byChannel = new Map<string, StoredMessage[]>();
  #lastSec = 0;
  #counter = 0;

  /** `${seconds}.${6-digit counter}`: unique and increasing even within one second. */
  nextTs(): string {
    const now = Math.floor(Date.now() / 1000);
    if (now > this.#lastSec) this.#lastSec = now;
    this.#counter += 1;
    if (this.#counter > 999_999) {
      this.#lastSec += 1;
      this.#counter = 1;
    }
    return `${this.#lastSec}.${String(this.#counter).padStart(6, '0')}`;
  }

  add(message: StoredMessage): StoredMessage {
    const list = this.#byChannel.get(message.channel) ?? [];
    list.push(message);
    this.#byChannel.set(message.channel, list);
    return message;
  }

  /** The live message at channel/ts, or undefined when absent or deleted. */
  find(channel: string, ts: string): StoredMessage | undefined {
    const found = this.#byChannel.get(channel)?.find((m) => m.ts === ts && m.deleted !== true);
    if (found !== undefined) this.refreshStream(found);
    return found;
  }

  /** Root first, then replies in posting order. */
  thread(channel: string, threadTs: string): StoredMessage[] {
    const live = this.#live(channel).filter((m) => m.ts === threadTs || m.thread_ts === threadTs);
    const root = live.filter((m) => m.ts === threadTs);
    return [...root, ...live.filter((m) => m.ts !== threadTs)];
  }

  /** What conversations.history lists: top-level messages and replies also sent to the channel. */
  history(channel: string): StoredMessage[] {
    return this.#live(channel).filter(
      (m) => m.thread_ts === undefined || m.thread_ts === m.ts || m.subtype === 'thread_broadcast',
    );
  }

  topLevel(channel: string): StoredMessage[] {
    return this.#live(channel).filter((m) => m.thread_ts === undefined || m.thread_ts === m.ts);
  }

  all(): StoredMessage[] {
    const out: StoredMessage[] = [];
    for (const channel of this.#byChannel.keys()) out.push(...this.#live(channel));
    return out;
  }

  /** Whether the stream on this message still accepts appends; expires it lazily. */
  streamOpen(m: StoredMessage): boolean {
    this.refreshStream(m);
    return m.streamState === 'open';
  }

  expire(m: StoredMessage): void {
    if (m.streamState !== 'open') return;
    m.streamState = 'expired';
    m.streaming = false;
  }

  refreshStream(m: StoredMessage): void {
    if (m.streamState !== 'open' || m.streamStartedAt === undefined) return;
    if (Date.now() - m.streamStartedAt >= this.streamLifetimeMs) this.expire(m);
  }

  react(m: StoredMessage, name: string, user: string): 'ok' | 'already_reacted' {
    const reactions = m.reactions ?? [];
    let reaction = reactions.find((r) => r.name === name);
    if (reaction?.users.includes(user) === true) return 'already_reacted';
    if (reaction === undefined) {
      reaction = { name, users: [], count: 0 };
      reactions.push(reaction);
    }
    reaction.users.push(user);
    reaction.count = reaction.users.length;
    m.reactions = reactions;
    return 'ok';
  }

  #live(channel: string): StoredMessage[] {
    const list = (this.#byChannel.get(channel) ?? []).filter((m) => m.deleted !== true);
    for (const m of list) this.refreshStream(m);
    return list;
  }
}

/** A detached copy with only the public fields, so callers cannot mutate the emulator's state. */
export function toPublic(m: StoredMessage): SlackMessage {
  const out: SlackMessage = { channel: m.channel, ts: m.ts, text: m.text };
  if (m.thread_ts !== undefined) out.thread_ts = m.thread_ts;
  if (m.subtype !== undefined) out.subtype = m.subtype;
  if (m.user !== undefined) out.user = m.user;
  if (m.bot_id !== undefined) out.bot_id = m.bot_id;
  if (m.blocks !== undefined) out.blocks = structuredClone(m.blocks);
  if (m.markdown_text !== undefined) out.markdown_text = m.markdown_text;
  if (m.chunks !== undefined) out.chunks = structuredClone(m.chunks);
  if (m.reactions !== undefined) out.reactions = m.reactions.map(copyReaction);
  if (m.streaming !== undefined) out.streaming = m.streaming;
  if (m.edited !== undefined) out.edited = m.edited;
  if (m.deleted !== undefined) out.deleted = m.deleted;
  if (m.files !== undefined) out.files = structuredClone(m.files);
  return out;
}

function copyReaction(r: SlackReaction): SlackReaction {
  return { name: r.name, users: [...r.users], count: r.count };
}
