// A person typing in Slack: the message lands in the workspace and the app gets what Slack
// sends for it: a `message` event always, and an `app_mention` too when the bot is mentioned
// outside a DM (Slack never sends app_mention for DMs).
import { randomUUID } from 'node:crypto';
import type { Deliverer } from './delivery.ts';
import { slackId } from './event-envelope.ts';
import type { MessageStore, StoredMessage } from './message-store.ts';
import type { ChannelType, DeliverOptions, DeliveryResult, UserMessageInput } from './types.ts';

export interface UserMessageDeps {
  store: MessageStore;
  deliverer: Deliverer;
  teamId: string;
  botUserId: string;
  channelTypes: Map<string, ChannelType>;
  dmUsers: Map<string, string>;
}

export async function postUserMessage(
  deps: UserMessageDeps,
  m: UserMessageInput,
): Promise<{ ts: string; deliveries: DeliveryResult[] }> {
  const channelType = m.channelType ?? inferChannelType(m.channel);
  deps.channelTypes.set(m.channel, channelType);
  if (channelType === 'im') deps.dmUsers.set(m.channel, m.user);

  const tag = `<@${deps.botUserId}>`;
  const mentioned = m.mention === true || m.text.includes(tag);
  // A real mention is part of the text; add it when the test only set the flag.
  const text = m.mention === true && !m.text.includes(tag) ? `${tag} ${m.text}` : m.text;
  const team = m.teamId ?? deps.teamId;

  const stored: StoredMessage = {
    channel: m.channel,
    ts: deps.store.nextTs(),
    user: m.user,
    text,
    team,
  };
  if (m.thread_ts !== undefined) stored.thread_ts = m.thread_ts;
  deps.store.add(stored);

  const base: Record<string, unknown> = {
    user: m.user,
    ts: stored.ts,
    client_msg_id: randomUUID(),
    text,
    team,
    blocks: richTextBlocks(text),
    channel: m.channel,
    event_ts: stored.ts,
  };
  if (m.thread_ts !== undefined) {
    base.thread_ts = m.thread_ts;
    const parent = deps.store.find(m.channel, m.thread_ts);
    if (parent?.user !== undefined) base.parent_user_id = parent.user;
  }

  const opts: DeliverOptions = {};
  if (m.teamId !== undefined) opts.teamId = m.teamId;
  if (m.enterpriseId !== undefined) opts.enterpriseId = m.enterpriseId;
  // Slack sends the two events independently (separate event_ids, no ordering guarantee).
  const pending = [
    deps.deliverer.deliverEvent({ type: 'message', ...base, channel_type: channelType }, opts),
  ];
  if (mentioned && channelType !== 'im') {
    pending.push(deps.deliverer.deliverEvent({ type: 'app_mention', ...base }, opts));
  }
  return { ts: stored.ts, deliveries: await Promise.all(pending) };
}

function inferChannelType(channel: string): ChannelType {
  if (channel.startsWith('D')) return 'im';
  if (channel.startsWith('G')) return 'group';
  return 'channel';
}

/** The rich_text block Slack's clients attach to what a person types, mentions as user elements. */
function richTextBlocks(text: string): unknown[] {
  const elements: unknown[] = [];
  const mention = /<@([UW][A-Z0-9]+)(?:\|[^>]*)?>/g;
  let last = 0;
  for (const match of text.matchAll(mention)) {
    if (match.index > last) elements.push({ type: 'text', text: text.slice(last, match.index) });
    elements.push({ type: 'user', user_id: match[1] });
    last = match.index + match[0].length;
  }
  if (last < text.length) elements.push({ type: 'text', text: text.slice(last) });
  return [
    {
      type: 'rich_text',
      block_id: slackId('', 5).toLowerCase(),
      elements: [{ type: 'rich_text_section', elements }],
    },
  ];
}
