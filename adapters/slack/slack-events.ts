// Slack events → the core's vocabulary: which events are questions and which conversation they
// belong to.
import type { Addressed } from '../../src/model/incoming.ts';
import type { ThreadRef } from '../../src/model/thread-ref.ts';

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

export interface SlackEnvelope {
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
}

/** `E123.T456` inside an Enterprise Grid org, `T456` otherwise. */
export function slackProjectId(env: SlackEnvelope, ev: SlackMessageEvent): string | undefined {
  const team = env.team_id ?? ev.team;
  if (!team) return undefined;
  return env.enterprise_id ? `${env.enterprise_id}.${team}` : team;
}

export function mentionsUser(text: string, userId: string): boolean {
  return new RegExp(`<@${userId}(\\|[^>]*)?>`).test(text);
}

export function stripMention(text: string, userId: string): string {
  return text
    .replace(new RegExp(`<@${userId}(\\|[^>]*)?>`, 'g'), '')
    .replace(/\s+/g, ' ')
    .trim();
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
  const projectId = slackProjectId(env, ev);
  if (!projectId) return null;
  const text = ev.text ?? '';
  const isDirect = ev.channel_type === 'im';
  const mentioned = mentionsUser(text, botUserId);
  let addressed: Addressed = isDirect ? 'direct' : 'mention';
  if (ev.type === 'message' && !isDirect) {
    // Mentions arrive as app_mention too; that event answers them.
    if (mentioned) return null;
    if (!ev.thread_ts) return null;
    addressed = 'ambient';
  }
  return {
    ref: { platform: 'slack', projectId, channelId: ev.channel, sessionId: ev.thread_ts ?? ev.ts },
    principal: ev.user,
    text: stripMention(text, botUserId),
    messageId: ev.ts,
    addressed,
    teamId: env.team_id ?? ev.team ?? '',
    isDirect,
  };
}
