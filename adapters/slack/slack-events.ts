// Slack events → the core's vocabulary: which events are questions and which conversation they
// belong to.
import type { Addressed } from '../../src/model/incoming.ts';
import type { ThreadRef } from '../../src/model/thread-ref.ts';
import { type SlackSourceFields, slackProjectOf, slackSource } from './slack-source.ts';

export interface SlackMessageEvent {
  type: 'message' | 'app_mention';
  subtype?: string;
  channel: string;
  channel_type?: string;
  user?: string;
  bot_id?: string;
  text?: string;
  ts: string;
  thread_ts?: string;
  team?: string;
}

export interface SlackEnvelope extends SlackSourceFields {
  event_id?: string;
  team_id?: string;
  enterprise_id?: string;
}

/** Message subtypes that carry a person's words; edits, joins and bot posts are not new questions. */
const ANSWERABLE_SUBTYPES = new Set([undefined, 'file_share', 'thread_broadcast']);

export interface Classified {
  ref: ThreadRef;
  principal: string;
  text: string;
  messageId: string;
  /** `ambient`: answered only if the bot already takes part in the thread. */
  addressed: Addressed;
  /** Where the event came from, for the reply (Slack streaming wants the recipient). */
  teamId: string;
  isDirect: boolean;
  /** In a channel, not in a thread: the channel's messages are the context. */
  topLevel: boolean;
  /** Names other people (or a user group) and not the bot. */
  mentionsOthers: boolean;
}

/** `<@U…>` or `<@U…|name>` naming this user. */
const mentionOf = (userId: string, flags = '') => new RegExp(`<@${userId}(\\|[^>]*)?>`, flags);

export function stripMention(text: string, userId: string): string {
  return text.replace(mentionOf(userId, 'g'), '').replace(/\s+/g, ' ').trim();
}

/**
 * Decides whether an event is a question for the bot. A top-level mention starts a thread under
 * itself (session = its ts); inside a thread the session is the thread root. DMs work the same way.
 */
export function classifySlackEvent(
  env: SlackEnvelope,
  ev: SlackMessageEvent,
  botUserId: string,
): Classified | null {
  if (ev.bot_id || !ev.user || ev.user === botUserId) return null;
  if (!ANSWERABLE_SUBTYPES.has(ev.subtype)) return null;
  const source = slackSource({ ...env, event: ev });
  if (!source) return null;
  const { projectId } = source;
  const text = ev.text ?? '';
  const isDirect = ev.channel_type === 'im';
  const mentioned = mentionOf(botUserId).test(text);
  let addressed: Addressed = isDirect ? 'direct' : 'mention';
  if (ev.type === 'message' && !isDirect) {
    // Mentions arrive as app_mention too; that event answers them. The rest is the channel's reply
    // mode's to decide.
    if (mentioned) return null;
    addressed = 'ambient';
  }
  const stripped = stripMention(text, botUserId);
  return {
    ref: { platform: 'slack', projectId, channelId: ev.channel, sessionId: ev.thread_ts ?? ev.ts },
    principal: ev.user,
    text: stripped,
    messageId: ev.ts,
    addressed,
    teamId: source.teamId,
    isDirect,
    topLevel: !isDirect && !ev.thread_ts,
    mentionsOthers: !mentioned && OTHER_MENTION.test(stripped),
  };
}

/** A user, or a user group (`<!subteam^S123>`), named in a message. */
const OTHER_MENTION = /<@[UW][A-Z0-9]+(\|[^>]*)?>|<!subteam\^[A-Z0-9]+/;

/** An edit or deletion Slack reports as a `message` event with a subtype. */
export interface SlackChangeEvent {
  subtype: 'message_changed' | 'message_deleted';
  channel: string;
  message?: {
    ts?: string;
    thread_ts?: string;
    text?: string;
    user?: string;
    bot_id?: string;
    subtype?: string;
  };
  previous_message?: { ts?: string; thread_ts?: string; user?: string; bot_id?: string };
  deleted_ts?: string;
  team?: string;
}

/** Which message of which conversation changed; null for the bot's own edits and other noise. */
export function classifySlackChange(
  env: SlackEnvelope,
  ev: SlackChangeEvent,
  botUserId: string,
): { ref: ThreadRef; messageId: string; text?: string } | null {
  const projectId = slackProjectOf({ ...env, event: ev });
  if (!projectId) return null;
  const before = ev.previous_message;
  // A thread parent deleted while it has replies stays as a tombstone, announced as a change.
  const tombstone = ev.message?.subtype === 'tombstone';
  const now = ev.subtype === 'message_changed' && !tombstone ? ev.message : undefined;
  const author = before ?? now;
  if (!author || author.bot_id || author.user === botUserId) return null;
  const messageId = ev.subtype === 'message_deleted' ? ev.deleted_ts : ev.message?.ts;
  if (!messageId) return null;
  const ref: ThreadRef = {
    platform: 'slack',
    projectId,
    channelId: ev.channel,
    sessionId: ev.message?.thread_ts ?? author.thread_ts ?? messageId,
  };
  return now
    ? { ref, messageId, text: stripMention(now.text ?? '', botUserId) }
    : { ref, messageId };
}
