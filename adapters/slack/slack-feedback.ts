// Feedback on Slack: the 👍/👎 under an answer (block_actions), the optional reason modal after a
// 👎, and `/threadmind feedback export` for workspace admins. The core stores and exports; this
// only translates.
import type { AllMiddlewareArgs, App, BlockAction, SlackViewMiddlewareArgs } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Conversation } from '../../src/core/conversation.ts';
import { type ExportFormat, parseVote } from '../../src/core/feedback.ts';
import { messages } from '../../src/core/messages.ts';
import type { Logger } from '../../src/log/logger.ts';
import {
  FEEDBACK_ACTION,
  FEEDBACK_REASON_CALLBACK,
  parseVoteValue,
  reasonView,
} from './slack-blocks.ts';
import { payloadProjectId } from './slack-events.ts';

/** An ephemeral reply holds at most this much of an export (Slack cuts messages at 40,000). */
const MAX_EXPORT_CHARS = 36_000;

export interface SlackFeedbackDeps {
  app: App;
  core: Conversation;
  log: Logger;
  admins: readonly string[];
  /** Bot text rendered like every other post (up to `limit` characters). */
  render(markdown: string, limit?: number): string;
}

interface ActionBody {
  user: { id: string };
  team?: { id?: string } | null;
  enterprise?: { id?: string } | null;
  channel?: { id?: string };
  message?: { ts?: string; thread_ts?: string };
  trigger_id?: string;
  actions?: { value?: string }[];
}

/** Workspace admins and owners, and the configured admins. */
export async function isWorkspaceAdmin(
  client: WebClient,
  admins: readonly string[],
  userId: string,
): Promise<boolean> {
  if (admins.includes(userId)) return true;
  const res = (await client.users.info({ user: userId })) as {
    user?: { is_admin?: boolean; is_owner?: boolean; is_primary_owner?: boolean };
  };
  const u = res.user;
  return u?.is_admin === true || u?.is_owner === true || u?.is_primary_owner === true;
}

export function registerSlackFeedback(d: SlackFeedbackDeps): void {
  const onVote = async ({
    ack,
    body,
    client,
  }: {
    ack: () => Promise<void>;
    body: unknown;
    client: WebClient;
  }) => {
    await ack();
    const b = body as ActionBody;
    const parsed = parseVoteValue(b.actions?.[0]?.value);
    const vote = parseVote(parsed?.vote);
    const projectId = payloadProjectId(b);
    const channel = b.channel?.id;
    if (!parsed || !vote || !projectId || !channel) {
      d.log.warn({ user: b.user.id }, 'unreadable feedback action ignored');
      return;
    }
    const r = await d.core.vote({
      platform: 'slack',
      projectId,
      id: parsed.id,
      userId: b.user.id,
      vote,
    });
    // A 👎 may say why: the modal is the reply (a trigger lasts 3 s, so it goes first).
    if (vote === 'down' && r.status !== 'unknown' && r.status !== 'invalid' && b.trigger_id) {
      const opened = await client.views
        .open({
          trigger_id: b.trigger_id,
          view: reasonView(
            { id: parsed.id, projectId, channel },
            messages.feedbackReasonPrompt,
          ) as unknown as Parameters<WebClient['views']['open']>[0]['view'],
        })
        .then(() => true)
        .catch((err: unknown) => {
          d.log.warn({ err }, 'could not open the feedback reason form');
          return false;
        });
      if (opened) return;
    }
    const thread = b.message?.thread_ts ?? b.message?.ts;
    await client.chat
      .postEphemeral({
        channel,
        user: b.user.id,
        text: d.render(r.text),
        ...(thread ? { thread_ts: thread } : {}),
      })
      .catch((err: unknown) => d.log.warn({ err }, 'could not confirm the vote'));
  };
  d.app.action<BlockAction>(FEEDBACK_ACTION, onVote);
  d.app.action<BlockAction>(new RegExp(`^${FEEDBACK_ACTION}_(up|down)$`), onVote);

  d.app.view(
    FEEDBACK_REASON_CALLBACK,
    async ({ ack, body, view, client }: SlackViewMiddlewareArgs & AllMiddlewareArgs) => {
      await ack();
      let place: { id: string; projectId: string; channel: string };
      try {
        place = JSON.parse(view.private_metadata) as typeof place;
      } catch {
        return;
      }
      const values = view.state.values as Record<string, Record<string, { value?: string | null }>>;
      const reason = values.reason?.value?.value ?? '';
      if (reason.trim() === '') return;
      const r = await d.core.vote({
        platform: 'slack',
        projectId: place.projectId,
        id: place.id,
        userId: body.user.id,
        vote: 'down',
        reason,
      });
      await client.chat
        .postEphemeral({ channel: place.channel, user: body.user.id, text: d.render(r.text) })
        .catch((err: unknown) => d.log.warn({ err }, 'could not confirm the reason'));
    },
  );
}

/** `/threadmind feedback export [csv|json]`: the workspace's votes, to an admin only. */
export async function exportFeedback(
  d: SlackFeedbackDeps,
  o: {
    client: WebClient;
    projectId: string;
    userId: string;
    words: string[];
    ephemeral(markdown: string): Promise<unknown>;
  },
): Promise<void> {
  const [verb, fmt = 'csv'] = o.words;
  if (verb !== 'export' || (fmt !== 'csv' && fmt !== 'json')) {
    await o.ephemeral(messages.feedbackExportUsage);
    return;
  }
  const isAdmin = await isWorkspaceAdmin(o.client, d.admins, o.userId).catch(() => false);
  const r = await d.core.exportFeedback(
    { platform: 'slack', projectId: o.projectId },
    { id: o.userId, isAdmin },
    fmt as ExportFormat,
  );
  if (!r.ok || r.file.rows === 0) {
    await o.ephemeral(r.text);
    return;
  }
  const body = r.file.body;
  const shown = body.length > MAX_EXPORT_CHARS ? body.slice(0, MAX_EXPORT_CHARS) : body;
  const note =
    shown.length < body.length
      ? `\n_(cut at ${MAX_EXPORT_CHARS} characters of ${body.length}; export JSON or ask whoever runs threadmind for the rest)_`
      : '';
  await o.ephemeral(`${r.text} \`${r.file.filename}\`\n\`\`\`\n${shown}\`\`\`${note}`);
}
