// Bolt's App and its receiver: HTTP Events API (mounted on the bot's HTTP server), OAuth (many
// workspaces, installed at /slack/install) or Socket Mode; and where each workspace's bot token
// comes from.
import { App, HTTPReceiver, SocketModeReceiver } from '@slack/bolt';
import type { Config } from '../../src/config/schema.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { SealedRecords } from '../../src/model/sealed-records.ts';
import { boltLogger } from './bolt-logger.ts';
import {
  type RenewalClaims,
  type SlackCredentialSource,
  type SlackCredentials,
  SlackInstallations,
} from './slack-installations.ts';
import { oauthReceiver } from './slack-oauth-receiver.ts';
import { answerRedeliverLater } from './slack-redeliver.ts';

/** Single-workspace mode: the token from the environment, the bot's ids from auth.test. */
export class FixedCredentials implements SlackCredentialSource {
  creds: SlackCredentials;
  constructor(token: string) {
    this.creds = { token, botUserId: undefined, botId: undefined };
  }
  async forProject(): Promise<SlackCredentials> {
    return this.creds;
  }
}

export interface SlackApp {
  app: App;
  httpReceiver: HTTPReceiver | undefined;
  socketReceiver: SocketModeReceiver | undefined;
  /** Set in OAuth mode: the installed workspaces. */
  installations: SlackInstallations | undefined;
  /** Set in single-workspace mode. */
  fixed: FixedCredentials | undefined;
  /** Where a workspace's bot token comes from, in either mode. */
  credentials: SlackCredentialSource;
}

export function createSlackApp(d: {
  config: Config;
  log: Logger;
  sealed?: SealedRecords | undefined;
  claims?: RenewalClaims | undefined;
}): SlackApp {
  const { config } = d;
  const s = config.secrets;
  const logger = boltLogger(d.log.child({ component: 'slack' }));
  const clientOptions = {
    slackApiUrl: config.slack.apiUrl,
    retryConfig: {
      retries: config.slack.maxRetries,
      factor: 2,
      minTimeout: 500,
      maxTimeout: 10_000,
    },
  };
  if (config.slackOAuth && !d.sealed) throw new Error('Slack OAuth mode needs sealed storage');
  // Set below; the refresh runs long after.
  let app: App | undefined;
  // Token rotation: the client id and secret exchange a refresh token for a new bot token.
  const installations =
    config.slackOAuth && d.sealed
      ? new SlackInstallations(
          d.sealed,
          d.claims
            ? {
                claims: d.claims,
                refresh: (refresh_token) =>
                  (app as App).client.oauth.v2.access({
                    client_id: s.slackClientId ?? '',
                    client_secret: s.slackClientSecret ?? '',
                    grant_type: 'refresh_token',
                    refresh_token,
                  }),
              }
            : undefined,
        )
      : undefined;
  const fixed = installations ? undefined : new FixedCredentials(s.slackBotToken ?? '');
  let httpReceiver: HTTPReceiver | undefined;
  let socketReceiver: SocketModeReceiver | undefined;
  let receiver: HTTPReceiver | SocketModeReceiver;
  if (installations && d.sealed) {
    receiver = httpReceiver = oauthReceiver({
      config,
      logger,
      log: d.log,
      installations,
      sealed: d.sealed,
      clientOptions,
    });
  } else if (config.slackTransport === 'socket') {
    receiver = socketReceiver = new SocketModeReceiver({
      appToken: s.slackAppToken ?? '',
      logger,
      installerOptions: { clientOptions },
    });
  } else {
    receiver = httpReceiver = new HTTPReceiver({
      signingSecret: s.slackSigningSecret ?? '',
      logger,
      // The bot's own server listens; this receiver only verifies and dispatches.
      port: 0,
      unhandledRequestTimeoutMillis: 3001,
      // Split roles: acknowledged once queued (a few ms), so a message acknowledged before the
      // next one arrives is also numbered before it.
      processBeforeResponse: config.scale.role !== 'all',
      processEventErrorHandler: answerRedeliverLater,
    });
  }
  app = new App({
    ...(installations ? {} : { token: s.slackBotToken ?? '' }),
    receiver,
    clientOptions,
    logger,
    // Nothing reads Bolt's conversation store, and its miss on every event builds an Error.
    convoStore: false,
    extendedErrorHandler: true,
  });
  return {
    app,
    httpReceiver,
    socketReceiver,
    installations,
    fixed,
    credentials: installations ?? (fixed as FixedCredentials),
  };
}
