// What every Web API method handler gets, and the small helpers they share.

import type { AssistantThreads } from '../assistant-threads.ts';
import { blockProblems } from '../block-kit.ts';
import type { FileStore } from '../file-store.ts';
import type { Interactivity } from '../interactivity.ts';
import type { MessageStore, StoredMessage } from '../message-store.ts';
import type { OAuthWorkspaces } from '../oauth.ts';
import type { ChannelType } from '../types.ts';

export type ApiArgs = Record<string, unknown>;
export type ApiResult = { ok: boolean; error?: string } & Record<string, unknown>;

export interface Identity {
  teamId: string;
  teamDomain: string;
  botUserId: string;
  botId: string;
  appId: string;
  botToken: string;
  appToken: string;
}

export interface ApiContext {
  ids: Identity;
  /** Workspaces installed through OAuth (their tokens, bot users, revocations). */
  oauth: OAuthWorkspaces;
  /** Which team (and org) each channel belongs to, learned from people's messages. */
  channelOwners: Map<string, { teamId: string; enterpriseId?: string | undefined }>;
  store: MessageStore;
  /** Channel kinds learned from user messages; otherwise inferred from the id's first letter. */
  channelTypes: Map<string, ChannelType>;
  /** The human side of each DM seen so far (conversations.info's `user`). */
  dmUsers: Map<string, string>;
  /** users.info fields by id, merged over the generated profile every well-formed id has. */
  users: Map<string, Record<string, unknown>>;
  /** conversations.info's `creator` by channel; others get DEFAULT_CHANNEL_CREATOR. */
  channelCreators: Map<string, string>;
  /** conversations.members by channel (setChannelMembers); others have just the bot. */
  channelMembers: Map<string, string[]>;
  /** User groups by id (setUserGroup): usergroups.list and usergroups.users.list answer from here. */
  userGroups: Map<string, UserGroupRec>;
  /** Trigger ids, modals, response_url posts and ephemeral messages. */
  interactivity: Interactivity;
  /** Every Web API answer waits this long (a slow Slack, for benchmarks). */
  apiLatencyMs: number;
  /** Uploaded files: files.info answers from here. */
  files: FileStore;
  streamingAvailable: boolean;
  /** false: a context_actions block (feedback buttons) is refused as invalid_blocks. */
  feedbackButtonsAvailable: boolean;
  /** false: a task_card block (native sources) is refused as invalid_blocks. */
  taskCardsAvailable: boolean;
  assistantStatusAvailable: boolean;
  /** Threads of the agent view: what the app set on each (prompts, titles). */
  assistantThreads: AssistantThreads;
  /** Issues a single-use Socket Mode URL. */
  openSocketUrl(): string;
}

export interface UserGroupRec {
  id: string;
  handle: string;
  name: string;
  users: string[];
  /** Seconds; > 0 once the group is disabled. */
  dateDelete: number;
  dateUpdate: number;
}

export type TokenKind = 'bot' | 'app';

export interface MethodSpec {
  /** `client`: no token; the app's client id and secret (oauth.v2.access). */
  token: TokenKind | 'client';
  /** When false the method answers unknown_method, as on a workspace without the feature. */
  available?: (ctx: ApiContext) => boolean;
  handle(args: ApiArgs, ctx: ApiContext): ApiResult;
}

export function fail(error: string, extra: Record<string, unknown> = {}): ApiResult {
  return { ok: false, error, ...extra };
}

/** Slack's schema-validated methods answer this shape for missing arguments. */
export function invalidArguments(...problems: string[]): ApiResult {
  return fail('invalid_arguments', {
    response_metadata: { messages: problems.map((p) => `[ERROR] ${p}`) },
  });
}

/** A string argument; numbers are accepted because form encoding loses the distinction. */
export function str(args: ApiArgs, key: string): string | undefined {
  const v = args[key];
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

/** A non-empty string argument. */
export function present(args: ApiArgs, key: string): string | undefined {
  const v = str(args, key);
  return v === undefined || v === '' ? undefined : v;
}

export function arr(args: ApiArgs, key: string): unknown[] | undefined {
  const v = args[key];
  return Array.isArray(v) ? v : undefined;
}

export function channelTypeOf(ctx: ApiContext, channel: string): ChannelType {
  const known = ctx.channelTypes.get(channel);
  if (known !== undefined) return known;
  if (channel.startsWith('D')) return 'im';
  if (channel.startsWith('G')) return 'group';
  return 'channel';
}

/** Slack's API shape of a message (conversations.replies, chat.postMessage's `message`). */
export function apiMessage(ctx: ApiContext, m: StoredMessage): Record<string, unknown> {
  const out: Record<string, unknown> = { type: 'message' };
  if (m.subtype !== undefined) out.subtype = m.subtype;
  Object.assign(out, { text: m.text, ts: m.ts });
  if (m.subtype === 'tombstone') out.hidden = true;
  if (m.client_msg_id !== undefined) out.client_msg_id = m.client_msg_id;
  if (m.user !== undefined) out.user = m.user;
  if (m.bot_id !== undefined) {
    out.bot_id = m.bot_id;
    out.app_id = m.app_id ?? ctx.ids.appId;
    out.bot_profile = { id: m.bot_id, app_id: ctx.ids.appId, name: 'threadmind', deleted: false };
  }
  out.team = m.team ?? ctx.ids.teamId;
  if (m.thread_ts !== undefined) out.thread_ts = m.thread_ts;
  if (m.blocks !== undefined) out.blocks = m.blocks;
  if (m.markdown_text !== undefined) out.markdown_text = m.markdown_text;
  if (m.reactions !== undefined) out.reactions = m.reactions;
  if (m.files !== undefined)
    Object.assign(out, { files: m.files, upload: false, display_as_bot: false });
  if (m.edited === true) out.edited = { user: m.user ?? ctx.ids.botUserId, ts: m.editedTs ?? m.ts };
  return out;
}

/** The reply summary Slack puts on a thread's parent; undefined when it has no replies. */
export function threadSummary(
  ctx: ApiContext,
  m: StoredMessage,
): Record<string, unknown> | undefined {
  const replies = ctx.store.thread(m.channel, m.ts).filter((r) => r.ts !== m.ts);
  const latest = replies[replies.length - 1];
  if (latest === undefined) return undefined;
  const users = [...new Set(replies.map((r) => r.user).filter((u) => u !== undefined))];
  return {
    thread_ts: m.ts,
    reply_count: replies.length,
    reply_users_count: users.length,
    latest_reply: latest.ts,
    reply_users: users,
    is_locked: false,
    subscribed: false,
  };
}

/**
 * Slack's answer to blocks this workspace does not know (feedback buttons or task cards where
 * unavailable), or to a task card that breaks the documented shape.
 */
export function blocksRefusal(
  ctx: ApiContext,
  blocks: unknown[] | undefined,
): ApiResult | undefined {
  for (const b of (blocks ?? []) as { type?: unknown }[]) {
    if (b?.type === 'context_actions' && !ctx.feedbackButtonsAvailable)
      return fail('invalid_blocks');
    if (b?.type === 'task_card' && (!ctx.taskCardsAvailable || !validTaskCard(b)))
      return fail('invalid_blocks');
  }
  const problems = blockProblems(blocks ?? [], 'message');
  if (problems.length > 0)
    return fail('invalid_blocks', { errors: problems, response_metadata: { messages: problems } });
  return undefined;
}

const TASK_STATUSES = new Set(['pending', 'in_progress', 'complete', 'error']);

/** task_id and title required; sources are url elements with an address and words. */
function validTaskCard(b: Record<string, unknown>): boolean {
  if (typeof b.task_id !== 'string' || !b.task_id) return false;
  if (typeof b.title !== 'string' || !b.title) return false;
  if (b.status !== undefined && !TASK_STATUSES.has(b.status as string)) return false;
  if (b.details !== undefined && (b.details as { type?: unknown }).type !== 'rich_text')
    return false;
  if (b.sources === undefined) return true;
  if (!Array.isArray(b.sources)) return false;
  return b.sources.every((src: { type?: unknown; url?: unknown; text?: unknown }) => {
    if (src?.type !== 'url' || typeof src.text !== 'string' || !src.text) return false;
    try {
      return /^https?:$/.test(new URL(String(src.url)).protocol);
    } catch {
      return false;
    }
  });
}
