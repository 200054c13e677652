// Slack's settings and the checks of its secrets: one workspace (SLACK_BOT_TOKEN, over HTTP or
// Socket Mode) or many through OAuth install (SLACK_CLIENT_ID/SLACK_CLIENT_SECRET).
import { z } from 'zod';
import { type Env, nonEmpty } from './layers.ts';
import type { Secrets } from './secrets.ts';

const url = z.string().url();
const positiveInt = z.number().int().positive();

export const slackSettingsSchema = z
  .object({
    mode: z.enum(['auto', 'http', 'socket']),
    apiUrl: url,
    /** Slack user ids who may change any channel's settings, besides workspace admins/owners and the channel's creator. */
    admins: z.array(z.string().regex(/^[UW][A-Z0-9]+$/)),
    streaming: z.enum(['auto', 'off']),
    updateIntervalMs: positiveInt,
    assistantStatus: z.boolean(),
    thinkingText: z.string().min(1),
    maxRetries: z.number().int().min(0).max(10),
    /** Installing into many workspaces (SLACK_CLIENT_ID/SLACK_CLIENT_SECRET set). */
    oauth: z
      .object({
        /** Where Slack sends the installer back; '' uses the app's only configured redirect URL. */
        redirectUrl: z.union([z.literal(''), url]),
        /** Lifetime of an install link's state. */
        stateTtlSeconds: positiveInt,
      })
      .strict(),
  })
  .strict();

export type SlackTransport = 'http' | 'socket' | null;

/** OAuth mode: many workspaces, each installation's tokens sealed in the store. */
export function checkSlackOAuth(s: Secrets, env: Env, problems: string[]): boolean {
  if (!s.slackClientId && !s.slackClientSecret) return false;
  if (!s.slackClientId || !s.slackClientSecret)
    problems.push(
      'SLACK_CLIENT_ID and SLACK_CLIENT_SECRET are both needed to install into workspaces (Basic Information → App Credentials)',
    );
  if (s.slackBotToken)
    problems.push(
      'SLACK_BOT_TOKEN and SLACK_CLIENT_ID are both set: use one workspace with its bot token, or many workspaces through OAuth install, not both',
    );
  if (s.slackAppToken)
    problems.push(
      'installing into many workspaces needs the HTTP Events API (SLACK_SIGNING_SECRET); unset SLACK_APP_TOKEN',
    );
  if (!s.slackSigningSecret)
    problems.push(
      'SLACK_SIGNING_SECRET is required with SLACK_CLIENT_ID (Basic Information → Signing Secret)',
    );
  if (!nonEmpty(env.THREADMIND_ENCRYPTION_KEY))
    problems.push(
      'THREADMIND_ENCRYPTION_KEY is required with SLACK_CLIENT_ID: installation tokens are stored encrypted (generate one with `openssl rand -base64 32`)',
    );
  return true;
}

export function checkSlack(
  settings: Pick<z.infer<typeof slackSettingsSchema>, 'mode'>,
  s: Secrets,
  problems: string[],
  oauth: boolean,
): SlackTransport {
  if (oauth) return 'http';
  if (!s.slackBotToken) {
    if (s.slackSigningSecret || s.slackAppToken) {
      problems.push(
        'SLACK_BOT_TOKEN is required when SLACK_SIGNING_SECRET or SLACK_APP_TOKEN is set (Slack app → OAuth & Permissions → Bot User OAuth Token, xoxb-…)',
      );
    }
    return null;
  }
  if (!s.slackBotToken.startsWith('xoxb-')) {
    problems.push(
      'SLACK_BOT_TOKEN must be a bot token starting with xoxb- (OAuth & Permissions → Bot User OAuth Token)',
    );
  }
  if (s.slackAppToken && !s.slackAppToken.startsWith('xapp-')) {
    problems.push(
      'SLACK_APP_TOKEN must be an app-level token starting with xapp- (Basic Information → App-Level Tokens, scope connections:write)',
    );
  }
  const mode = settings.mode === 'auto' ? (s.slackAppToken ? 'socket' : 'http') : settings.mode;
  if (mode === 'socket' && !s.slackAppToken) {
    problems.push(
      'SLACK_APP_TOKEN is required for slack.mode=socket (Basic Information → App-Level Tokens)',
    );
  }
  if (mode === 'http' && !s.slackSigningSecret) {
    problems.push(
      'SLACK_SIGNING_SECRET is required when SLACK_BOT_TOKEN is set (Basic Information → Signing Secret), or set SLACK_APP_TOKEN to use Socket Mode',
    );
  }
  return mode;
}
