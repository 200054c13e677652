// Many workspaces: Bolt's HTTP receiver with its OAuth installer. /slack/install sends the browser
// to Slack with a single-use state (kept sealed in the store, tied to a cookie); the redirect back
// stores the installation (SlackInstallations) and shows a short page.
import { type Logger as BoltLogger, HTTPReceiver } from '@slack/bolt';
import type { Config } from '../../src/config/schema.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { SealedRecords } from '../../src/model/sealed-records.ts';
import { manifestBotScopes } from './slack-doctor.ts';
import { type SlackInstallations, SlackStateStore } from './slack-installations.ts';
import { answerRedeliverLater } from './slack-redeliver.ts';

/** Where Slack's authorize page is: beside the Web API (slack.com/api/ → slack.com/oauth/v2/authorize). */
export function authorizeUrl(apiUrl: string): string {
  return new URL('../oauth/v2/authorize', new URL(apiUrl.endsWith('/') ? apiUrl : `${apiUrl}/`))
    .href;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export interface OAuthReceiverOptions {
  config: Config;
  logger: BoltLogger;
  log: Logger;
  installations: SlackInstallations;
  sealed: SealedRecords;
  clientOptions: { slackApiUrl: string };
}

export function oauthReceiver(o: OAuthReceiverOptions): HTTPReceiver {
  const redirectUri = o.config.slack.oauth.redirectUrl || undefined;
  return new HTTPReceiver({
    signingSecret: o.config.secrets.slackSigningSecret ?? '',
    logger: o.logger,
    port: 0,
    unhandledRequestTimeoutMillis: 3001,
    // Split roles: acknowledged once queued, as without OAuth (slack-app.ts).
    processBeforeResponse: o.config.scale.role !== 'all',
    processEventErrorHandler: answerRedeliverLater,
    clientId: o.config.secrets.slackClientId ?? '',
    clientSecret: o.config.secrets.slackClientSecret ?? '',
    scopes: manifestBotScopes(),
    installationStore: o.installations,
    ...(redirectUri ? { redirectUri } : {}),
    installerOptions: {
      stateStore: new SlackStateStore(o.sealed, o.config.slack.oauth.stateTtlSeconds * 1000),
      // /slack/install sends the browser straight to Slack (with the state cookie set).
      directInstall: true,
      authorizationUrl: authorizeUrl(o.config.slack.apiUrl),
      clientOptions: o.clientOptions,
      ...(redirectUri ? { redirectUriPath: new URL(redirectUri).pathname } : {}),
      callbackOptions: {
        success: (installation, _options, _req, res) => {
          const where = installation.isEnterpriseInstall
            ? installation.enterprise?.id
            : installation.team?.id;
          o.log.info(
            { team: installation.team?.id, enterprise: installation.enterprise?.id },
            'slack app installed',
          );
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
          res.end(
            `<!doctype html><meta charset="utf-8"><title>threadmind installed</title><p>threadmind is installed${where ? ` (${escapeHtml(where)})` : ''}. Mention @threadmind in a channel to start.</p>`,
          );
        },
        failure: (error, _options, _req, res) => {
          o.log.warn(
            { error: (error as { code?: string }).code ?? error.name },
            'slack install failed',
          );
          res.writeHead(400, { 'content-type': 'text/html; charset=utf-8' });
          res.end(
            '<!doctype html><meta charset="utf-8"><title>threadmind not installed</title><p>The installation did not complete (the link may be used or expired). Start again from /slack/install.</p>',
          );
        },
      },
    },
  });
}
