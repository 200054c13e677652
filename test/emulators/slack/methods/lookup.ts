// Read methods: conversations.replies / conversations.info / users.info / files.info.
// Channels and users are not registered up front: any well-formed id exists.
import type { StoredMessage } from '../message-store.ts';
import {
  type ApiArgs,
  type ApiContext,
  type ApiResult,
  apiMessage,
  channelTypeOf,
  fail,
  type MethodSpec,
  present,
  str,
} from './context.ts';

const CREATED = 1_700_000_000;
/** conversations.info's `creator` of channels nobody set one for (see setChannelCreator). */
export const DEFAULT_CHANNEL_CREATOR = 'U0EMUOWNER';

function tsNum(ts: string): number {
  return Number.parseFloat(ts);
}

/** Applies oldest/latest/inclusive to replies; the parent always stays, as in Slack. */
function inWindow(args: ApiArgs, root: string, m: StoredMessage): boolean {
  if (m.ts === root) return true;
  const inclusive = str(args, 'inclusive') === 'true' || str(args, 'inclusive') === '1';
  const oldest = present(args, 'oldest');
  const latest = present(args, 'latest');
  const t = tsNum(m.ts);
  if (oldest !== undefined && (inclusive ? t < tsNum(oldest) : t <= tsNum(oldest))) return false;
  if (latest !== undefined && (inclusive ? t > tsNum(latest) : t >= tsNum(latest))) return false;
  return true;
}

function replies(args: ApiArgs, ctx: ApiContext): ApiResult {
  const channel = present(args, 'channel');
  if (channel === undefined) return fail('channel_not_found');
  const ts = present(args, 'ts');
  const thread = ts === undefined ? [] : ctx.store.thread(channel, ts);
  if (ts === undefined || thread.length === 0) return fail('thread_not_found');
  const rest = thread.filter((m) => m.ts !== ts);
  const all = thread
    .filter((m) => inWindow(args, ts, m))
    .map((m) => {
      const out = apiMessage(ctx, m);
      if (m.ts === ts && rest.length > 0) {
        // Slack decorates a thread's parent with its reply summary.
        out.thread_ts = ts;
        out.reply_count = rest.length;
        out.reply_users = [...new Set(rest.map((r) => r.user).filter((u) => u !== undefined))];
        out.latest_reply = rest[rest.length - 1]?.ts;
      } else if (m.ts !== ts) {
        const parentUser = thread[0]?.ts === ts ? thread[0].user : undefined;
        if (parentUser !== undefined) out.parent_user_id = parentUser;
      }
      return out;
    });
  const limit = Math.min(Math.max(Number(str(args, 'limit') ?? 1000) || 1000, 1), 1000);
  const cursor = present(args, 'cursor');
  const start = cursor === undefined ? 0 : Number(Buffer.from(cursor, 'base64').toString()) || 0;
  const page = all.slice(start, start + limit);
  const more = start + limit < all.length;
  return {
    ok: true,
    messages: page,
    has_more: more,
    response_metadata: {
      next_cursor: more ? Buffer.from(String(start + limit)).toString('base64') : '',
    },
  };
}

function conversationInfo(args: ApiArgs, ctx: ApiContext): ApiResult {
  const id = present(args, 'channel');
  if (id === undefined || !/^[CDG][A-Z0-9]+$/.test(id)) return fail('channel_not_found');
  const type = channelTypeOf(ctx, id);
  if (type === 'im') {
    const channel: Record<string, unknown> = {
      id,
      created: CREATED,
      is_im: true,
      is_org_shared: false,
      is_user_deleted: false,
      priority: 0,
    };
    const user = ctx.dmUsers.get(id);
    if (user !== undefined) channel.user = user;
    return { ok: true, channel };
  }
  const name = `channel-${id.toLowerCase()}`;
  const channel = {
    id,
    name,
    name_normalized: name,
    is_channel: type === 'channel',
    is_group: type === 'group',
    is_im: false,
    is_mpim: false,
    is_private: type === 'group',
    created: CREATED,
    creator: ctx.channelCreators.get(id) ?? DEFAULT_CHANNEL_CREATOR,
    is_archived: false,
    is_general: false,
    is_member: true,
    is_shared: false,
    is_ext_shared: false,
    is_org_shared: false,
    context_team_id: ctx.ids.teamId,
    topic: { value: '', creator: '', last_set: 0 },
    purpose: { value: '', creator: '', last_set: 0 },
  };
  return { ok: true, channel };
}

function userInfo(args: ApiArgs, ctx: ApiContext): ApiResult {
  const id = present(args, 'user');
  if (id === undefined || !/^[UW][A-Z0-9]+$/.test(id)) return fail('user_not_found');
  return { ok: true, user: userObject(ctx, id) };
}

/** users.info's user: a generated profile with the test's fields (setUser) merged over it. */
export function userObject(ctx: ApiContext, id: string): Record<string, unknown> {
  const isBot = id === ctx.ids.botUserId;
  const name = isBot ? 'threadmind' : id.toLowerCase();
  const realName = isBot ? 'threadmind' : `User ${id}`;
  const profile: Record<string, unknown> = {
    real_name: realName,
    display_name: name,
    real_name_normalized: realName,
    display_name_normalized: name,
    team: ctx.ids.teamId,
  };
  if (isBot) {
    profile.bot_id = ctx.ids.botId;
    profile.api_app_id = ctx.ids.appId;
  }
  const user: Record<string, unknown> = {
    id,
    team_id: ctx.ids.teamId,
    name,
    real_name: realName,
    deleted: false,
    tz: 'Etc/UTC',
    tz_offset: 0,
    is_admin: false,
    is_owner: false,
    is_primary_owner: false,
    is_bot: isBot,
    is_app_user: false,
    updated: CREATED,
    profile,
  };
  const override = ctx.users.get(id);
  if (override === undefined) return user;
  const extra = (override.profile ?? {}) as Record<string, unknown>;
  const merged: Record<string, unknown> = { ...user, ...override, id };
  const realOverride = typeof override.real_name === 'string' ? override.real_name : undefined;
  // Slack keeps the two real_name copies (and the normalized ones) in step.
  const mergedProfile: Record<string, unknown> = { ...profile };
  if (realOverride !== undefined) {
    mergedProfile.real_name = realOverride;
    mergedProfile.real_name_normalized = realOverride;
  }
  Object.assign(mergedProfile, extra);
  if (typeof extra.display_name === 'string' && extra.display_name_normalized === undefined) {
    mergedProfile.display_name_normalized = extra.display_name;
  }
  if (typeof extra.real_name === 'string') {
    if (realOverride === undefined) merged.real_name = extra.real_name;
    if (extra.real_name_normalized === undefined) {
      mergedProfile.real_name_normalized = extra.real_name;
    }
  }
  merged.profile = mergedProfile;
  return merged;
}

function fileInfo(args: ApiArgs, ctx: ApiContext): ApiResult {
  const id = present(args, 'file');
  const file = id === undefined ? undefined : ctx.files.info(id);
  if (file === undefined) return fail('file_not_found');
  return { ok: true, file, comments: [], response_metadata: { next_cursor: '' } };
}

/** conversations.members: paginated like Slack (limit up to 1000, an opaque next_cursor). */
function members(args: ApiArgs, ctx: ApiContext): ApiResult {
  const id = present(args, 'channel');
  if (id === undefined || !/^[CDG][A-Z0-9]+$/.test(id)) return fail('channel_not_found');
  const all = ctx.channelMembers.get(id) ?? [ctx.ids.botUserId];
  const limit = Math.min(Math.max(Number(str(args, 'limit') ?? 100) || 100, 1), 1000);
  const cursor = present(args, 'cursor');
  const start = cursor === undefined ? 0 : Number(Buffer.from(cursor, 'base64').toString()) || 0;
  const more = start + limit < all.length;
  return {
    ok: true,
    members: all.slice(start, start + limit),
    response_metadata: {
      next_cursor: more ? Buffer.from(String(start + limit)).toString('base64') : '',
    },
  };
}

export const lookupMethods: Record<string, MethodSpec> = {
  'conversations.replies': { token: 'bot', handle: replies },
  'conversations.info': { token: 'bot', handle: conversationInfo },
  'conversations.members': { token: 'bot', handle: members },
  'users.info': { token: 'bot', handle: userInfo },
  'files.info': { token: 'bot', handle: fileInfo },
};
