// chat.postMessage / chat.update / chat.delete and reactions.add: the bot's ordinary writes.
import type { StoredMessage } from '../message-store.ts';
import type { EphemeralMessage } from '../types.ts';
import {
  type ApiArgs,
  type ApiContext,
  type ApiResult,
  apiMessage,
  arr,
  blocksRefusal,
  fail,
  type MethodSpec,
  present,
  str,
} from './context.ts';

interface Content {
  text?: string;
  blocks?: unknown[];
  markdown_text?: string;
}

/** The message body arguments, or undefined when none carries anything (Slack: no_text). */
function contentOf(args: ApiArgs): Content | undefined {
  const content: Content = {};
  const text = present(args, 'text');
  const blocks = arr(args, 'blocks');
  const markdown = present(args, 'markdown_text');
  const attachments = arr(args, 'attachments');
  if (text !== undefined) content.text = text;
  if (blocks !== undefined && blocks.length > 0) content.blocks = blocks;
  if (markdown !== undefined) content.markdown_text = markdown;
  const empty = Object.keys(content).length === 0;
  return empty && (attachments === undefined || attachments.length === 0) ? undefined : content;
}

function postMessage(args: ApiArgs, ctx: ApiContext): ApiResult {
  const channel = present(args, 'channel');
  if (channel === undefined) return fail('channel_not_found');
  const content = contentOf(args);
  if (content === undefined) return fail('no_text');
  const refused = blocksRefusal(ctx, content.blocks);
  if (refused) return refused;
  const m: StoredMessage = {
    channel,
    ts: ctx.store.nextTs(),
    user: ctx.ids.botUserId,
    bot_id: ctx.ids.botId,
    app_id: ctx.ids.appId,
    team: ctx.ids.teamId,
    text: content.text ?? content.markdown_text ?? '',
  };
  const threadTs = present(args, 'thread_ts');
  if (threadTs !== undefined) m.thread_ts = threadTs;
  if (content.blocks !== undefined) m.blocks = content.blocks;
  if (content.markdown_text !== undefined) m.markdown_text = content.markdown_text;
  ctx.store.add(m);
  return { ok: true, channel, ts: m.ts, message: apiMessage(ctx, m) };
}

/** Looks up a message the bot may change; the error names follow chat.update / chat.delete. */
function ownMessage(args: ApiArgs, ctx: ApiContext, notOwned: string): StoredMessage | ApiResult {
  const channel = present(args, 'channel');
  if (channel === undefined) return fail('channel_not_found');
  const ts = present(args, 'ts');
  const m = ts === undefined ? undefined : ctx.store.find(channel, ts);
  if (m === undefined) return fail('message_not_found');
  if (m.bot_id !== ctx.ids.botId) return fail(notOwned);
  return m;
}

function isResult(v: StoredMessage | ApiResult): v is ApiResult {
  return 'ok' in v;
}

function update(args: ApiArgs, ctx: ApiContext): ApiResult {
  const m = ownMessage(args, ctx, 'cant_update_message');
  if (isResult(m)) return m;
  const content = contentOf(args);
  if (content === undefined) return fail('no_text');
  const refused = blocksRefusal(ctx, content.blocks);
  if (refused) return refused;
  if (content.blocks !== undefined) m.blocks = content.blocks;
  // chat.update with only blocks keeps the text; an explicit empty text is Slack's "clear it".
  if (content.text !== undefined) m.text = content.text;
  else if (str(args, 'text') === '') m.text = '';
  if (content.markdown_text !== undefined) {
    m.markdown_text = content.markdown_text;
    if (content.text === undefined) m.text = content.markdown_text;
  }
  m.edited = true;
  return { ok: true, channel: m.channel, ts: m.ts, text: m.text, message: apiMessage(ctx, m) };
}

function remove(args: ApiArgs, ctx: ApiContext): ApiResult {
  const m = ownMessage(args, ctx, 'cant_delete_message');
  if (isResult(m)) return m;
  m.deleted = true;
  return { ok: true, channel: m.channel, ts: m.ts };
}

/** Shown to one person only: never stored as a channel message, recorded for tests instead. */
function postEphemeral(args: ApiArgs, ctx: ApiContext): ApiResult {
  const channel = present(args, 'channel');
  if (channel === undefined) return fail('channel_not_found');
  const user = present(args, 'user');
  if (user === undefined || !/^[UW][A-Z0-9]+$/.test(user)) return fail('user_not_in_channel');
  const content = contentOf(args);
  if (content === undefined) return fail('no_text');
  const refused = blocksRefusal(ctx, content.blocks);
  if (refused) return refused;
  const messageTs = ctx.store.nextTs();
  const e: EphemeralMessage = {
    channel,
    user,
    text: content.text ?? content.markdown_text ?? '',
    source: 'chat.postEphemeral',
    message_ts: messageTs,
    at: Date.now(),
  };
  if (content.blocks !== undefined) e.blocks = content.blocks;
  const threadTs = present(args, 'thread_ts');
  if (threadTs !== undefined) e.thread_ts = threadTs;
  ctx.interactivity.ephemerals.push(e);
  return { ok: true, message_ts: messageTs };
}

function reactionsAdd(args: ApiArgs, ctx: ApiContext): ApiResult {
  const name = present(args, 'name');
  if (name === undefined) return fail('invalid_name');
  const channel = present(args, 'channel');
  const ts = present(args, 'timestamp');
  if (channel === undefined || ts === undefined) return fail('no_item_specified');
  const m = ctx.store.find(channel, ts);
  if (m === undefined) return fail('message_not_found');
  const outcome = ctx.store.react(m, name.replace(/^:|:$/g, ''), ctx.ids.botUserId);
  return outcome === 'ok' ? { ok: true } : fail(outcome);
}

export const chatMethods: Record<string, MethodSpec> = {
  'chat.postMessage': { token: 'bot', handle: postMessage },
  'chat.update': { token: 'bot', handle: update },
  'chat.delete': { token: 'bot', handle: remove },
  'chat.postEphemeral': { token: 'bot', handle: postEphemeral },
  'reactions.add': { token: 'bot', handle: reactionsAdd },
};
