// A person editing or deleting their message, and the `message` events Slack sends for it:
// subtype message_changed (message + previous_message) or message_deleted (deleted_ts +
// previous_message), both hidden, with a ts of their own. Deleting a thread parent that still has
// replies leaves Slack's tombstone in its place (announced by message_changed); the tombstone is
// deleted once its last reply is.
import type { Deliverer } from './delivery.ts';
import type { MessageStore, StoredMessage } from './message-store.ts';
import type {
  ChannelType,
  DeleteUserMessageInput,
  EditUserMessageInput,
  UserChangeResult,
} from './types.ts';
import { inferChannelType, richTextBlocks } from './user-messages.ts';

export interface UserEditDeps {
  store: MessageStore;
  deliverer: Deliverer;
  teamId: string;
  channelTypes: Map<string, ChannelType>;
}

const TOMBSTONE_TEXT = 'This message was deleted.';
const SLACKBOT = 'USLACKBOT';

/** The message as events carry it (no channel), with the thread summary on a parent. */
function eventMessage(store: MessageStore, m: StoredMessage): Record<string, unknown> {
  const out: Record<string, unknown> = { type: 'message' };
  if (m.subtype !== undefined) out.subtype = m.subtype;
  out.text = m.text;
  if (m.user !== undefined) out.user = m.user;
  if (m.subtype === 'tombstone') out.hidden = true;
  out.ts = m.ts;
  if (m.subtype !== 'tombstone') {
    if (m.client_msg_id !== undefined) out.client_msg_id = m.client_msg_id;
    out.team = m.team;
    if (m.bot_id !== undefined) out.bot_id = m.bot_id;
    if (m.edited === true) out.edited = { user: m.user, ts: m.editedTs ?? m.ts };
    out.blocks = m.blocks ?? richTextBlocks(m.text);
    if (m.files !== undefined)
      Object.assign(out, { files: structuredClone(m.files), upload: false });
  }
  if (m.thread_ts !== undefined && m.thread_ts !== m.ts) {
    out.thread_ts = m.thread_ts;
    const parent = store.thread(m.channel, m.thread_ts)[0];
    if (parent?.ts === m.thread_ts && parent.user !== undefined) out.parent_user_id = parent.user;
  } else {
    const replies = store.thread(m.channel, m.ts).filter((r) => r.ts !== m.ts);
    if (replies.length > 0 || m.subtype === 'tombstone') {
      const users = [...new Set(replies.map((r) => r.user).filter((u) => u !== undefined))];
      Object.assign(out, {
        thread_ts: m.ts,
        reply_count: replies.length,
        reply_users_count: users.length,
        latest_reply: replies[replies.length - 1]?.ts ?? '0000000000.000000',
        reply_users: users,
        is_locked: false,
        subscribed: false,
      });
      if (m.subtype === 'tombstone') out.parent_user_id = SLACKBOT;
    }
  }
  return out;
}

function ownMessage(deps: UserEditDeps, channel: string, ts: string): StoredMessage {
  const m = deps.store.find(channel, ts);
  if (m === undefined) throw new Error(`Slack emulator: no message ${channel}/${ts}`);
  if (m.bot_id !== undefined) {
    throw new Error(
      `Slack emulator: ${channel}/${ts} is the bot's; people edit their own messages`,
    );
  }
  return m;
}

function channelType(deps: UserEditDeps, channel: string): ChannelType {
  return deps.channelTypes.get(channel) ?? inferChannelType(channel);
}

async function deliver(
  deps: UserEditDeps,
  event: Record<string, unknown>,
  eventTs: string,
): Promise<UserChangeResult> {
  const delivery = await deps.deliverer.deliverEvent(event);
  return { eventTs, event, deliveries: [delivery] };
}

export async function editUserMessage(
  deps: UserEditDeps,
  e: EditUserMessageInput,
): Promise<UserChangeResult> {
  const m = ownMessage(deps, e.channel, e.ts);
  if (m.subtype === 'tombstone')
    throw new Error('Slack emulator: a deleted message cannot be edited');
  const previous = eventMessage(deps.store, m);
  const eventTs = deps.store.nextTs();
  m.text = e.text;
  m.edited = true;
  m.editedTs = eventTs;
  delete m.blocks;
  const event: Record<string, unknown> = {
    type: 'message',
    subtype: 'message_changed',
    message: eventMessage(deps.store, m),
    previous_message: previous,
    channel: m.channel,
    hidden: true,
    ts: eventTs,
    event_ts: eventTs,
    channel_type: channelType(deps, m.channel),
  };
  return deliver(deps, event, eventTs);
}

export async function deleteUserMessage(
  deps: UserEditDeps,
  d: DeleteUserMessageInput,
): Promise<UserChangeResult> {
  const m = ownMessage(deps, d.channel, d.ts);
  const previous = eventMessage(deps.store, m);
  const eventTs = deps.store.nextTs();
  const isParent = m.thread_ts === undefined || m.thread_ts === m.ts;
  const replies = isParent ? deps.store.thread(m.channel, m.ts).filter((r) => r.ts !== m.ts) : [];
  if (replies.length > 0 && m.subtype !== 'tombstone') {
    Object.assign(m, { subtype: 'tombstone', text: TOMBSTONE_TEXT, user: SLACKBOT });
    for (const key of ['blocks', 'files', 'client_msg_id', 'edited', 'editedTs'] as const) {
      delete m[key];
    }
    const event: Record<string, unknown> = {
      type: 'message',
      subtype: 'message_changed',
      message: eventMessage(deps.store, m),
      previous_message: previous,
      channel: m.channel,
      hidden: true,
      ts: eventTs,
      event_ts: eventTs,
      channel_type: channelType(deps, m.channel),
    };
    return deliver(deps, event, eventTs);
  }
  m.deleted = true;
  const result = await deliver(deps, deletedEvent(deps, m, previous, eventTs), eventTs);
  // The last reply of a tombstoned parent takes the tombstone with it.
  const parent =
    m.thread_ts !== undefined && m.thread_ts !== m.ts
      ? deps.store.find(m.channel, m.thread_ts)
      : undefined;
  if (parent?.subtype === 'tombstone' && deps.store.thread(m.channel, parent.ts).length === 1) {
    const before = eventMessage(deps.store, parent);
    parent.deleted = true;
    const ts = deps.store.nextTs();
    const more = await deliver(deps, deletedEvent(deps, parent, before, ts), ts);
    result.deliveries.push(...more.deliveries);
  }
  return result;
}

function deletedEvent(
  deps: UserEditDeps,
  m: StoredMessage,
  previous: Record<string, unknown>,
  eventTs: string,
): Record<string, unknown> {
  return {
    type: 'message',
    subtype: 'message_deleted',
    previous_message: previous,
    channel: m.channel,
    hidden: true,
    deleted_ts: m.ts,
    event_ts: eventTs,
    ts: eventTs,
    channel_type: channelType(deps, m.channel),
  };
}
