// The app's own lifecycle: uninstalled or its token revoked (the tokens go at once), and what a
// listener could not handle (an event from a workspace without an installation is dropped).
import type { App } from '@slack/bolt';
import type { Conversation } from '../../src/core/conversation.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { SlackEnvelope } from './slack-events.ts';
import type { SlackInstallations } from './slack-installations.ts';
import { isRedeliverLater } from './slack-redeliver.ts';
import { slackInstallSource } from './slack-source.ts';

export function listenAppEvents(d: {
  app: App;
  core: Conversation;
  log: Logger;
  installations: SlackInstallations | undefined;
}): void {
  /** Removes a workspace's (or an org's) installation: its tokens stop working here at once. */
  const forget = async (envelope: SlackEnvelope, why: string): Promise<void> => {
    // The installation Bolt would have authorized the event with (it skips authorizing these).
    const s = slackInstallSource(envelope);
    const removed = s
      ? await d.installations?.remove(s.enterpriseId, s.teamId, s.isEnterpriseInstall)
      : undefined;
    d.log.info(
      { team: s?.teamId, enterprise: s?.enterpriseId, removed: removed ?? false, why },
      'slack installation removed',
    );
  };
  // Uninstalled, or the bot token revoked: the tokens go at once; Bolt skips authorize for these.
  d.app.event('app_uninstalled', async ({ body }) => {
    await forget(body as SlackEnvelope, 'app_uninstalled');
  });
  d.app.event('tokens_revoked', async ({ event, body }) => {
    if ((event.tokens.bot ?? []).length > 0) {
      await forget(body as SlackEnvelope, 'tokens_revoked');
    }
  });
  const onError = async ({
    error,
    body,
  }: {
    error: Error & { code?: string };
    body?: unknown;
  }): Promise<void> => {
    // Answered 503 by the receiver (slack-redeliver.ts), so that Slack sends the event again.
    if (isRedeliverLater(error)) throw error;
    if (error.code === 'slack_bolt_authorization_error') {
      // An event from a workspace the app is not installed in (any more): acknowledged and
      // dropped, so Slack does not retry it and nobody is answered with a token that is gone.
      const b = body as (SlackEnvelope & { event?: { ts?: string } }) | undefined;
      const s = b ? slackInstallSource(b) : undefined;
      d.log.info(
        { team: s?.teamId, enterprise: s?.enterpriseId },
        'slack event from a workspace without an installation ignored',
      );
      if (b?.event?.ts) d.core.skipped('slack', b.event.ts);
      return;
    }
    d.log.error({ err: error }, 'slack listener error');
  };
  // extendedErrorHandler: Bolt passes the body too.
  d.app.error(onError);
}
