// chat.startStream / appendStream / stopStream and assistant.threads.setStatus: the AI-app
// surface, which a workspace may not offer (see the availability switches).
import type { StoredMessage } from '../message-store.ts';
import {
  type ApiArgs,
  type ApiContext,
  type ApiResult,
  apiMessage,
  arr,
  blocksRefusal,
  channelTypeOf,
  fail,
  invalidArguments,
  type MethodSpec,
  present,
  str,
} from './context.ts';

// What a chat:write-only bot reports as granted when Slack refuses a scope-gated call.
export const PROVIDED_SCOPES =
  'app_mentions:read,channels:history,chat:write,im:history,reactions:write';

/** Appends markdown_text and chunks in call order; false when a chunk is malformed. */
function appendContent(m: StoredMessage, markdown: string | undefined, chunks: unknown[]): boolean {
  if (markdown !== undefined) appendText(m, markdown);
  for (const chunk of chunks) {
    if (typeof chunk !== 'object' || chunk === null || !('type' in chunk)) return false;
    const c = chunk as { type: unknown; text?: unknown };
    if (c.type === 'markdown_text') {
      if (typeof c.text !== 'string') return false;
      appendText(m, c.text);
    } else {
      m.chunks = [...(m.chunks ?? []), chunk];
    }
  }
  return true;
}

function appendText(m: StoredMessage, text: string): void {
  m.markdown_text = (m.markdown_text ?? '') + text;
  m.text = m.markdown_text;
}

function startStream(args: ApiArgs, ctx: ApiContext): ApiResult {
  const channel = present(args, 'channel');
  if (channel === undefined) return fail('channel_not_found');
  const threadTs = present(args, 'thread_ts');
  if (threadTs === undefined) return invalidArguments('missing required field: thread_ts');
  // Outside a DM Slack needs to know whose client renders the stream.
  if (channelTypeOf(ctx, channel) !== 'im') {
    if (present(args, 'recipient_user_id') === undefined) return fail('missing_recipient_user_id');
    if (present(args, 'recipient_team_id') === undefined) return fail('missing_recipient_team_id');
  }
  const m: StoredMessage = {
    channel,
    ts: ctx.store.nextTs(),
    thread_ts: threadTs,
    user: ctx.ids.botUserId,
    bot_id: ctx.ids.botId,
    app_id: ctx.ids.appId,
    team: ctx.ids.teamId,
    text: '',
    streaming: true,
    streamState: 'open',
    streamStartedAt: Date.now(),
  };
  if (!appendContent(m, present(args, 'markdown_text'), arr(args, 'chunks') ?? [])) {
    return invalidArguments('chunks: each chunk needs a type (markdown_text needs text)');
  }
  ctx.store.add(m);
  return { ok: true, channel, ts: m.ts };
}

/** The open stream named by channel/ts, or the error Slack gives for it. */
function openStream(args: ApiArgs, ctx: ApiContext): StoredMessage | ApiResult {
  const channel = present(args, 'channel');
  if (channel === undefined) return fail('channel_not_found');
  const ts = present(args, 'ts');
  const m = ts === undefined ? undefined : ctx.store.find(channel, ts);
  if (m === undefined) return fail('message_not_found');
  if (m.bot_id !== ctx.ids.botId) return fail('cant_update_message');
  if (!ctx.store.streamOpen(m)) return fail('message_not_in_streaming_state');
  return m;
}

function isResult(v: StoredMessage | ApiResult): v is ApiResult {
  return 'ok' in v;
}

function appendStream(args: ApiArgs, ctx: ApiContext): ApiResult {
  const m = openStream(args, ctx);
  if (isResult(m)) return m;
  const markdown = present(args, 'markdown_text');
  const chunks = arr(args, 'chunks') ?? [];
  if (markdown === undefined && chunks.length === 0) return fail('no_text');
  if (!appendContent(m, markdown, chunks)) {
    return invalidArguments('chunks: each chunk needs a type (markdown_text needs text)');
  }
  return { ok: true, channel: m.channel, ts: m.ts };
}

function stopStream(args: ApiArgs, ctx: ApiContext): ApiResult {
  const m = openStream(args, ctx);
  if (isResult(m)) return m;
  const refused = blocksRefusal(ctx, arr(args, 'blocks'));
  if (refused) return refused;
  if (!appendContent(m, present(args, 'markdown_text'), arr(args, 'chunks') ?? [])) {
    return invalidArguments('chunks: each chunk needs a type (markdown_text needs text)');
  }
  const blocks = arr(args, 'blocks');
  if (blocks !== undefined) m.blocks = blocks;
  m.streaming = false;
  m.streamState = 'stopped';
  return { ok: true, channel: m.channel, ts: m.ts, message: apiMessage(ctx, m) };
}

function setStatus(args: ApiArgs, ctx: ApiContext): ApiResult {
  // An app without the assistant feature is refused as lacking its scope (documented by
  // apps that detect "status unsupported" in the wild via needed/provided).
  if (!ctx.assistantStatusAvailable) {
    return fail('missing_scope', { needed: 'assistant:write', provided: PROVIDED_SCOPES });
  }
  const channel = present(args, 'channel_id');
  if (channel === undefined) return fail('channel_not_found', { detail: 'Invalid channel_id' });
  const threadTs = present(args, 'thread_ts');
  // Not checked against stored messages: tests may deliver hand-built events nothing stored.
  if (threadTs === undefined) return fail('invalid_thread_ts');
  // An empty status is how apps clear the indicator, so only absence is an error.
  if (str(args, 'status') === undefined) return invalidArguments('missing required field: status');
  return { ok: true };
}

const streamingOn = (ctx: ApiContext): boolean => ctx.streamingAvailable;

export const streamingMethods: Record<string, MethodSpec> = {
  'chat.startStream': { token: 'bot', available: streamingOn, handle: startStream },
  'chat.appendStream': { token: 'bot', available: streamingOn, handle: appendStream },
  'chat.stopStream': { token: 'bot', available: streamingOn, handle: stopStream },
  'assistant.threads.setStatus': { token: 'bot', handle: setStatus },
};
