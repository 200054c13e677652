// `/threadmind` (or `/threadmind settings`): the channel's settings flow, `show` to show them with
// their changes, `feedback export` and `erase-workspace` (a flow) for admins; the words are the
// core's commands table's (src/core/commands.ts).
import type { AllMiddlewareArgs, App, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { messages } from '../../src/core/messages.ts';
import { slackTypedCommand } from '../../src/core/slack-typed-command.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { SlackInteractions } from './slack-interactions.ts';
import { slackSource } from './slack-source.ts';

/** The command's dependencies, and the flows it begins. */
export interface CommandDeps {
  app: App;
  log: Logger;
  /** Bot text rendered like every other post (up to `limit` characters). */
  render(markdown: string, limit?: number): string;
  flows: SlackInteractions;
}

/** The app's slash command (manifest.yaml). */
export const SLACK_COMMAND = '/threadmind';

export function registerSlackCommand(d: CommandDeps): void {
  d.app.command(SLACK_COMMAND, (args) => onCommand(d, args));
}

async function onCommand(
  d: CommandDeps,
  { command, ack, respond, client }: SlackCommandMiddlewareArgs & AllMiddlewareArgs,
): Promise<void> {
  // Slack wants the acknowledgement within 3 s, and a modal within 3 s of the trigger.
  await ack();
  const source = slackSource(command);
  const ephemeral = (text: string, limit?: number) =>
    respond({ response_type: 'ephemeral', text: d.render(text, limit) });
  if (!source) return;
  try {
    const typed = slackTypedCommand(command.text);
    if ('usage' in typed) {
      await ephemeral(typed.usage);
      return;
    }
    await d.flows.command(typed.flow, {
      client,
      user: command.user_id,
      team: source.teamId,
      projectId: source.projectId,
      channel: command.channel_id,
      triggerId: command.trigger_id,
      respond,
      values: typed.values,
    });
  } catch (err) {
    d.log.error({ err, command: command.command }, 'slash command failed');
    await ephemeral(messages.error(messages.commandFailed)).catch(() => undefined);
  }
}
