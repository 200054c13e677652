// `/threadmind`: the channel's settings form (a modal), `settings` to show them with their changes,
// `feedback export` and `erase-workspace` for admins (the core's flows); and the form's submission,
// a settings change for the core.
import type {
  AllMiddlewareArgs,
  App,
  SlackCommandMiddlewareArgs,
  SlackViewMiddlewareArgs,
} from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Conversation } from '../../src/core/conversation.ts';
import { messages } from '../../src/core/messages.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { ThreadRef } from '../../src/model/thread-ref.ts';
import { type SlackEnvelope, type SlackMessageEvent, slackProjectId } from './slack-events.ts';
import type { SlackInteractions } from './slack-interactions.ts';
import {
  type FormPlace,
  mayChangeSettings,
  patchFromState,
  SETTINGS_CALLBACK,
  settingsView,
} from './slack-settings.ts';

/** The command's dependencies, and the flows it begins. */
export interface CommandDeps {
  app: App;
  core: Conversation;
  log: Logger;
  admins: readonly string[];
  /** Bot text rendered like every other post (up to `limit` characters). */
  render(markdown: string, limit?: number): string;
  flows: SlackInteractions;
}

export function registerSlackCommand(d: CommandDeps): void {
  d.app.command('/threadmind', (args) => onCommand(d, args));
  d.app.view(SETTINGS_CALLBACK, (args) => onSettingsSubmitted(d, args));
}

async function onCommand(
  d: CommandDeps,
  { command, ack, respond, body, client }: SlackCommandMiddlewareArgs & AllMiddlewareArgs,
): Promise<void> {
  // Slack wants the acknowledgement within 3 s, and a modal within 3 s of the trigger.
  await ack();
  const projectId = slackProjectId(
    body as SlackEnvelope,
    {
      team: command.team_id,
    } as SlackMessageEvent,
  );
  const ephemeral = (text: string, limit?: number) =>
    respond({ response_type: 'ephemeral', text: d.render(text, limit) });
  if (!projectId) return;
  const ref: ThreadRef = {
    platform: 'slack',
    projectId,
    channelId: command.channel_id,
    sessionId: command.channel_id,
  };
  const { core } = d;
  const words = command.text.trim().toLowerCase();
  try {
    if (words === 'settings' || words === 'show') {
      await ephemeral(await core.describeSettings(ref));
      return;
    }
    const [verb, sub, format] = words.split(/\s+/);
    if (verb === 'feedback' && sub !== 'export') {
      await ephemeral(messages.feedbackExportUsage);
      return;
    }
    if (verb === 'feedback' || words === 'erase-workspace') {
      await d.flows.command(verb === 'feedback' ? 'export' : 'erase', {
        client,
        user: command.user_id,
        team: command.team_id,
        projectId,
        channel: command.channel_id,
        triggerId: command.trigger_id,
        respond,
        ...(verb === 'feedback' && format ? { values: { format } } : {}),
      });
      return;
    }
    if (words !== '' && words !== 'edit') {
      await ephemeral(messages.slackCommandUsage);
      return;
    }
    const allowed = await mayChangeSettings(client, d.admins, command.user_id, command.channel_id);
    if (!allowed) {
      // Recorded like any refused change, so the audit trail shows the attempt.
      const r = await core.changeSettings(ref, { id: command.user_id, mayChange: false }, {});
      await ephemeral(r.text);
      return;
    }
    const form = await core.settingsForm(ref);
    await client.views.open({
      trigger_id: command.trigger_id,
      view: settingsView(form.effective.settings, form.models, {
        channel: command.channel_id,
        projectId,
      }) as unknown as Parameters<WebClient['views']['open']>[0]['view'],
    });
  } catch (err) {
    d.log.error({ err, command: command.command }, 'slash command failed');
    await ephemeral(messages.error(messages.commandFailed)).catch(() => undefined);
  }
}

async function onSettingsSubmitted(
  d: CommandDeps,
  { ack, body, view, client }: SlackViewMiddlewareArgs & AllMiddlewareArgs,
): Promise<void> {
  let place: FormPlace;
  try {
    place = JSON.parse(view.private_metadata) as FormPlace;
  } catch {
    await ack();
    return;
  }
  const user = body.user.id;
  const ref: ThreadRef = {
    platform: 'slack',
    projectId: place.projectId,
    channelId: place.channel,
    sessionId: place.channel,
  };
  const patch = patchFromState(
    view.state.values as unknown as Parameters<typeof patchFromState>[0],
  );
  const mayChange = await mayChangeSettings(client, d.admins, user, place.channel).catch(
    () => false,
  );
  const r = await d.core.changeSettings(ref, { id: user, mayChange }, patch);
  if (!r.ok && mayChange) {
    // An invalid value: the form stays open with the problem under the field.
    const block = patch.model !== undefined && /model/i.test(r.text) ? 'model' : 'instructions';
    await ack({ response_action: 'errors', errors: { [block]: r.text.slice(0, 150) } });
    return;
  }
  await ack();
  await client.chat
    .postEphemeral({ channel: place.channel, user, text: d.render(r.text) })
    .catch((err: unknown) => d.log.warn({ err }, 'could not confirm the settings change'));
}
