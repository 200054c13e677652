// "Share file with workspace", the message shortcut: the message's files become the workspace's
// (the core decides and says what happened). Every answer is ephemeral, through the shortcut's
// response_url. From a private place the answer is a confirmation with Share / Cancel buttons that
// carry only the message's place and who asked: on Share the message's files are read again, so
// any replica can handle the click.
import type { App, BlockAction, RespondArguments, RespondFn } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Conversation } from '../../src/core/conversation.ts';
import type { ShareReply } from '../../src/core/file-sharing.ts';
import { messages } from '../../src/core/messages.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { Destination } from '../../src/model/platform-port.ts';
import type { ThreadRef } from '../../src/model/thread-ref.ts';
import { slackErrorCode } from './slack-errors.ts';
import { payloadProjectId } from './slack-events.ts';
import type { SlackFileRef, SlackFiles } from './slack-files.ts';
import { slackContext } from './slack-port.ts';

/** callback_id of the "Share file with workspace" message shortcut (manifest.yaml). */
export const SHARE_SHORTCUT = 'threadmind_share_file';
export const SHARE_CONFIRM_ACTION = 'threadmind_share_confirm';
export const SHARE_CANCEL_ACTION = 'threadmind_share_cancel';

export interface SlackShareDeps {
  app: App;
  core: Conversation;
  files: SlackFiles;
  log: Logger;
  /** Remembers where a person was seen (names are looked up with that workspace's token). */
  noteUser(userId: string, projectId: string): void;
  /** Bot text rendered like every other post. */
  render(markdown: string): string;
}

/** What a confirmation's buttons carry: the message (channel, ts, thread) and who asked. */
interface SharePlace {
  c: string;
  m: string;
  t?: string;
  u: string;
}

interface ShareShortcutBody {
  action_ts: string;
  team?: { id?: string } | null;
  enterprise?: { id?: string } | null;
  user: { id: string };
  channel: { id: string };
  message?: { ts: string; thread_ts?: string; files?: SlackFileRef[] };
}

interface ShareActionBody {
  user: { id: string };
  team?: { id?: string } | null;
  enterprise?: { id?: string } | null;
  actions?: { value?: string; action_ts?: string }[];
}

interface BotContext {
  botToken?: string;
}

function parsePlace(value: string | undefined): SharePlace | undefined {
  try {
    const p = JSON.parse(value ?? '') as Partial<SharePlace>;
    if (typeof p.c === 'string' && typeof p.m === 'string' && typeof p.u === 'string')
      return { c: p.c, m: p.m, u: p.u, ...(typeof p.t === 'string' ? { t: p.t } : {}) };
  } catch {
    // not ours
  }
  return undefined;
}

export function registerSlackShare(d: SlackShareDeps): void {
  d.app.shortcut(SHARE_SHORTCUT, async ({ ack, body, context, respond }) => {
    await ack();
    await onShortcut(d, body as unknown as ShareShortcutBody, context as BotContext, respond).catch(
      (err: unknown) => d.log.error({ err, shortcut: SHARE_SHORTCUT }, 'slack shortcut failed'),
    );
  });
  d.app.action<BlockAction>(
    SHARE_CONFIRM_ACTION,
    async ({ ack, body, context, respond, client }) => {
      await ack();
      await onConfirm(d, body as ShareActionBody, context as BotContext, respond, client).catch(
        (err: unknown) => d.log.error({ err, action: SHARE_CONFIRM_ACTION }, 'slack action failed'),
      );
    },
  );
  d.app.action<BlockAction>(SHARE_CANCEL_ACTION, async ({ ack, respond }) => {
    await ack();
    await respond({ replace_original: true, text: d.render(messages.shareCancelled) }).catch(
      (err: unknown) => d.log.warn({ err }, 'could not say the share was cancelled'),
    );
  });
}

function placeOf(
  projectId: string,
  team: string,
  p: SharePlace,
): { ref: ThreadRef; to: Destination } {
  const ref: ThreadRef = {
    platform: 'slack',
    projectId,
    channelId: p.c,
    sessionId: p.t ?? p.m,
  };
  return { ref, to: { ref, context: slackContext(team, p.u, p.c.startsWith('D')) } };
}

async function onShortcut(
  d: SlackShareDeps,
  b: ShareShortcutBody,
  context: BotContext,
  respond: RespondFn,
): Promise<void> {
  const projectId = payloadProjectId(b);
  const team = b.team?.id;
  const token = context.botToken;
  if (!projectId || !team || !token || !b.message?.ts) return;
  d.noteUser(b.user.id, projectId);
  const place: SharePlace = {
    c: b.channel.id,
    m: b.message.ts,
    u: b.user.id,
    ...(b.message.thread_ts ? { t: b.message.thread_ts } : {}),
  };
  const { ref, to } = placeOf(projectId, team, place);
  const r = await d.core.shareMessageFiles({
    ref,
    to,
    principal: b.user.id,
    messageId: place.m,
    files: await d.files.refs(b.message.files, token),
    confirmed: false,
    traceId: crypto.randomUUID(),
    dedupe: [`slack:share:${projectId}:${b.action_ts}:${b.user.id}`],
  });
  await answer(d, respond, r, place, false);
}

async function onConfirm(
  d: SlackShareDeps,
  b: ShareActionBody,
  context: BotContext,
  respond: RespondFn,
  client: WebClient,
): Promise<void> {
  const action = b.actions?.[0];
  const place = parsePlace(action?.value);
  const projectId = payloadProjectId(b);
  const team = b.team?.id;
  const token = context.botToken;
  if (!place || !projectId || !team || !token) {
    d.log.warn({ user: b.user.id }, 'unreadable share confirmation ignored');
    return;
  }
  const { ref, to } = placeOf(projectId, team, place);
  // The files as the message has them now (a file removed since is not shared).
  const found = await messageFiles(client, token, place).catch((err: unknown) => {
    d.log.info(
      { channel: place.c, error: slackErrorCode(err) ?? String(err) },
      'shared message unreadable',
    );
    return undefined;
  });
  if (found === undefined) {
    await respond({ replace_original: true, text: d.render(messages.shareMessageGone) });
    return;
  }
  const r = await d.core.shareMessageFiles({
    ref,
    to,
    principal: b.user.id,
    askedBy: place.u,
    messageId: place.m,
    files: await d.files.refs(found, token),
    confirmed: true,
    traceId: crypto.randomUUID(),
    dedupe: [`slack:share-confirm:${projectId}:${action?.action_ts ?? place.m}:${b.user.id}`],
  });
  // Someone else's click leaves the confirmation where it is.
  await answer(d, respond, r, place, r.status !== 'refused');
}

/** Reads one message's files (conversations.replies around its ts); undefined when it is gone. */
async function messageFiles(
  client: WebClient,
  token: string,
  p: SharePlace,
): Promise<SlackFileRef[] | undefined> {
  const res = (await client.conversations.replies({
    token,
    channel: p.c,
    ts: p.t ?? p.m,
    oldest: p.m,
    latest: p.m,
    inclusive: true,
    limit: 2,
  })) as { messages?: { ts?: string; files?: SlackFileRef[] }[] };
  const m = res.messages?.find((x) => x.ts === p.m);
  return m ? (m.files ?? []) : undefined;
}

/** The core's reply, ephemeral; a confirmation gets the Share / Cancel buttons. */
async function answer(
  d: SlackShareDeps,
  respond: RespondFn,
  r: ShareReply,
  place: SharePlace,
  replace: boolean,
): Promise<void> {
  if (r.status === 'duplicate' || r.text === '') return;
  const text = d.render(r.text);
  const base = {
    response_type: 'ephemeral' as const,
    ...(replace ? { replace_original: true } : {}),
  };
  if (r.status !== 'confirm') {
    await respond({ ...base, text });
    return;
  }
  const value = JSON.stringify(place);
  const button = (action_id: string, label: string, style?: 'primary') => ({
    type: 'button' as const,
    action_id,
    text: { type: 'plain_text' as const, text: label },
    value,
    ...(style ? { style } : {}),
  });
  const reply = {
    ...base,
    text,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text } },
      {
        type: 'actions',
        block_id: 'threadmind_share',
        elements: [
          button(SHARE_CONFIRM_ACTION, messages.shareConfirmLabel, 'primary'),
          button(SHARE_CANCEL_ACTION, messages.shareCancelLabel),
        ],
      },
    ],
  } as RespondArguments;
  await respond(reply);
}
