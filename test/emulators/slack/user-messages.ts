// A person typing in Slack: the message lands in the workspace and the app gets what Slack
// sends for it: a `message` event always, and an `app_mention` too when the bot is mentioned
// outside a DM (Slack never sends app_mention for DMs). With files, the message event has
// subtype file_share and both events carry the file objects (unless the test asks for an
// app_mention without them, which Slack also sends at times).
import { randomUUID } from 'node:crypto';
import type { Deliverer } from './delivery.ts';
import { slackId } from './event-envelope.ts';
import type { FileStore } from './file-store.ts';
import type { MessageStore, StoredMessage } from './message-store.ts';
import type {
  ChannelType,
  DeliverOptions,
  DeliveryResult,
  SlackFile,
  UserMessageInput,
} from './types.ts';

export interface UserMessageDeps {
  store: MessageStore;
  deliverer: Deliverer;
  files: FileStore;
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

  const clientMsgId = randomUUID();
  const stored: StoredMessage = {
    channel: m.channel,
    ts: deps.store.nextTs(),
    user: m.user,
    text,
    team,
    client_msg_id: clientMsgId,
  };
  if (m.thread_ts !== undefined) stored.thread_ts = m.thread_ts;
  const broadcast = m.broadcast === true && m.thread_ts !== undefined;
  if (broadcast) stored.subtype = 'thread_broadcast';
  const files = shareFiles(deps, m, channelType, stored.ts);
  if (files !== undefined) stored.files = structuredClone(files);
  deps.store.add(stored);

  const base: Record<string, unknown> = {
    user: m.user,
    ts: stored.ts,
    client_msg_id: clientMsgId,
    text,
    team,
    channel: m.channel,
    event_ts: stored.ts,
  };
  // A file posted without a comment comes with no blocks.
  if (text !== '' || files === undefined) base.blocks = richTextBlocks(text);
  if (m.thread_ts !== undefined) {
    base.thread_ts = m.thread_ts;
    const parent = deps.store.find(m.channel, m.thread_ts);
    if (parent?.user !== undefined) base.parent_user_id = parent.user;
  }

  const opts: DeliverOptions = {};
  if (m.teamId !== undefined) opts.teamId = m.teamId;
  if (m.enterpriseId !== undefined) opts.enterpriseId = m.enterpriseId;
  // Slack sends the two events independently (separate event_ids, no ordering guarantee).
  const message: Record<string, unknown> = { type: 'message', ...base, channel_type: channelType };
  const mention: Record<string, unknown> = { type: 'app_mention', ...base };
  if (broadcast) {
    // A broadcast reply carries its thread's parent as `root`.
    const parent = deps.store.find(m.channel, m.thread_ts ?? '');
    message.subtype = 'thread_broadcast';
    if (parent !== undefined) message.root = rootOf(deps.store, parent);
  }
  if (files !== undefined) {
    Object.assign(message, { subtype: 'file_share', files, upload: true, display_as_bot: false });
    if (m.mentionWithoutFiles !== true) {
      Object.assign(mention, {
        files: structuredClone(files),
        upload: false,
        display_as_bot: false,
      });
    }
  }
  const pending = [deps.deliverer.deliverEvent(message, opts)];
  if (mentioned && channelType !== 'im') pending.push(deps.deliverer.deliverEvent(mention, opts));
  return { ts: stored.ts, deliveries: await Promise.all(pending) };
}

/** Records the shares and returns the files as events carry them; undefined when none. */
function shareFiles(
  deps: UserMessageDeps,
  m: UserMessageInput,
  channelType: ChannelType,
  ts: string,
): SlackFile[] | undefined {
  if (m.files === undefined || m.files.length === 0) return undefined;
  for (const f of m.files) {
    const at = { channel: m.channel, channelType, ts, user: m.user };
    deps.files.share(f.id, m.thread_ts === undefined ? at : { ...at, threadTs: m.thread_ts });
  }
  return m.files.map((f) => deps.files.eventFile(f));
}

export function inferChannelType(channel: string): ChannelType {
  if (channel.startsWith('D')) return 'im';
  if (channel.startsWith('G')) return 'group';
  return 'channel';
}

function rootOf(store: MessageStore, parent: StoredMessage): Record<string, unknown> {
  const replies = store.thread(parent.channel, parent.ts).filter((r) => r.ts !== parent.ts);
  const users = [...new Set(replies.map((r) => r.user).filter((u) => u !== undefined))];
  const root: Record<string, unknown> = { type: 'message', text: parent.text, ts: parent.ts };
  if (parent.user !== undefined) root.user = parent.user;
  return {
    ...root,
    thread_ts: parent.ts,
    reply_count: replies.length,
    reply_users_count: users.length,
    latest_reply: replies[replies.length - 1]?.ts ?? parent.ts,
    reply_users: users,
    is_locked: false,
    subscribed: false,
  };
}

/** The rich_text block Slack's clients attach to what a person types, mentions as user elements. */
export function richTextBlocks(text: string): unknown[] {
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
