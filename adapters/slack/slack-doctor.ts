// Slack's part of `npm run doctor`: the bot token (auth.test), the scopes it was granted against
// those manifest.yaml asks for, and the Socket Mode app token; in OAuth mode the app's client id and
// secret and where installers are sent back. It lives in the adapter because the
// manifest and the meaning of Slack's error codes are Slack knowledge; src/doctor only runs it
// (src/doctor/platform-checks.ts).
// Sent by src/doctor's plain fetch rather than Bolt's WebClient: the granted scopes come only as
// the `x-oauth-scopes` response header, which WebClient does not hand back.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { Config } from '../../src/config/schema.ts';
import type { CheckResult } from '../../src/model/check-result.ts';
import { type CodeVerdict, isCallbackUrl, judgeByCode } from '../../src/model/code-verdict.ts';
import type { PlatformCheck, PlatformChecks } from '../../src/model/platform-checks.ts';

const MANIFEST = new URL('./manifest.yaml', import.meta.url);

/** The bot scopes the app manifest asks for. */
export function manifestBotScopes(text = readFileSync(MANIFEST, 'utf8')): string[] {
  const manifest = parseYaml(text) as { oauth_config?: { scopes?: { bot?: unknown } } } | null;
  const bot = manifest?.oauth_config?.scopes?.bot;
  return Array.isArray(bot) ? bot.filter((s): s is string => typeof s === 'string') : [];
}

/** One Web API call (a form posted, with the token when there is one), judged by Slack's error code. */
function apiCheck(
  config: Config,
  v: CodeVerdict,
  method: string,
  token?: string,
  form: Record<string, string> = {},
): PlatformCheck {
  const headers = token ? { authorization: `Bearer ${token}` } : {};
  const url = new URL(method, config.slack.apiUrl).href;
  return {
    name: v.name,
    calls: { [method]: { url, label: method, headers, form } },
    judge: (a) => judgeByCode(v, String(a(method).body.error ?? ''), a(method).body),
  };
}

const okBody = (_code: string, body: Record<string, unknown>) => body.ok === true;

const TOKEN_FIX =
  'Set SLACK_BOT_TOKEN to the Bot User OAuth Token (xoxb-…) from api.slack.com/apps → your app → OAuth & Permissions; if the app was uninstalled or the token revoked, reinstall the app to the workspace first.';
const REVOKED = [
  'invalid_auth',
  'not_authed',
  'token_revoked',
  'token_expired',
  'account_inactive',
];

const AUTH: CodeVerdict = {
  name: 'slack.auth',
  accepted: okBody,
  ok: (b) => `bot token accepted: @${String(b.user)} in ${String(b.team)} (${String(b.team_id)})`,
  refused: 'Slack refused the bot token',
  fixes: Object.fromEntries(REVOKED.map((code) => [code, TOKEN_FIX])),
  fix: 'Set SLACK_BOT_TOKEN to the Bot User OAuth Token (xoxb-…) from OAuth & Permissions.',
};

const SOCKET: CodeVerdict = {
  name: 'slack.socket_mode',
  accepted: okBody,
  ok: () => 'the app-level token opens Socket Mode connections (apps.connections.open)',
  refused: 'Slack refused the app-level token',
  fixes: {
    not_allowed_token_type:
      'SLACK_APP_TOKEN must be an app-level token (xapp-…), not a bot or user token: Basic Information → App-Level Tokens.',
    missing_scope:
      'The app-level token needs the connections:write scope: Basic Information → App-Level Tokens → create one with connections:write.',
  },
  fix: 'Set SLACK_APP_TOKEN to an app-level token (xapp-…) with connections:write (Basic Information → App-Level Tokens) and turn on Socket Mode (Settings → Socket Mode).',
};

/** A code no install produced: Slack judges the client id and secret before the code. */
const PROBE_CODE = 'threadmind-doctor-probe';

const CLIENT: CodeVerdict = {
  name: 'slack.oauth_client',
  // Refusing the probe code is what shows the id and secret are right.
  accepted: (code) => code === 'invalid_code' || code === 'code_already_used',
  ok: () =>
    'Slack accepts the app’s client id and secret (a probe code was refused as it should be)',
  refused: 'Slack refused the app’s OAuth credentials',
  fixes: {
    invalid_client_id:
      'Set SLACK_CLIENT_ID to the Client ID under api.slack.com/apps → your app → Basic Information → App Credentials.',
    bad_client_secret:
      'Set SLACK_CLIENT_SECRET to the Client Secret under Basic Information → App Credentials (regenerated secrets replace the old one at once).',
  },
  fix: 'Check SLACK_CLIENT_ID and SLACK_CLIENT_SECRET (Basic Information → App Credentials).',
};

function scopesCheck(granted: string | null, wanted: string[]): CheckResult {
  if (granted === null) {
    return {
      name: 'slack.scopes',
      status: 'warn',
      summary: 'Slack did not report the token’s scopes (no x-oauth-scopes header); not checked',
      fix: `Make sure the app has the bot scopes of adapters/slack/manifest.yaml: ${wanted.join(', ')}.`,
    };
  }
  const have = new Set(granted.split(',').map((s) => s.trim()));
  const missing = wanted.filter((s) => !have.has(s));
  if (missing.length === 0) {
    return {
      name: 'slack.scopes',
      status: 'ok',
      summary: `the bot token has all ${wanted.length} scopes the manifest asks for`,
    };
  }
  return {
    name: 'slack.scopes',
    status: 'fail',
    summary: `the bot token lacks ${missing.length} scope${missing.length === 1 ? '' : 's'} the manifest asks for: ${missing.join(', ')}`,
    fix: 'api.slack.com/apps → your app → OAuth & Permissions → Bot Token Scopes: add them (or paste adapters/slack/manifest.yaml under App Manifest), then reinstall the app to the workspace — the token carries new scopes only after reinstalling.',
  };
}

function redirectCheck(config: Config): CheckResult {
  const name = 'slack.oauth_redirect';
  const url = config.slack.oauth.redirectUrl;
  const path = '/slack/oauth_redirect';
  if (!url) {
    return {
      name,
      status: 'warn',
      summary:
        'SLACK_REDIRECT_URL is not set: Slack sends installers to the app’s only Redirect URL',
      fix: `Set SLACK_REDIRECT_URL to https://<this bot's public host>${path} and list the same URL under OAuth & Permissions → Redirect URLs; with several listed, Slack needs to be told which.`,
    };
  }
  if (!isCallbackUrl(url, path)) {
    return {
      name,
      status: 'fail',
      summary: `SLACK_REDIRECT_URL (${url}) is not an https address ending in ${path}; installs will fail`,
      fix: `Slack requires https: set SLACK_REDIRECT_URL to https://<this bot's public host>${path}, the same as under OAuth & Permissions → Redirect URLs.`,
    };
  }
  return {
    name,
    status: 'ok',
    summary: `installers come back to ${url} (list it under OAuth & Permissions → Redirect URLs)`,
  };
}

/** Slack checks sharing a credential; a call Slack does not answer names where its API is. */
function group(config: Config, checks: PlatformChecks['checks']): PlatformChecks {
  return {
    platform: 'Slack',
    api: {
      what: `Slack's Web API at ${config.slack.apiUrl}`,
      fix: 'Check SLACK_API_URL (default https://slack.com/api/) and that this host may open connections to it (firewall, proxy, DNS).',
    },
    checks,
  };
}

/** OAuth mode: the client credentials (a probe exchange) and the redirect address. */
function oauthChecks(config: Config): PlatformChecks[] {
  const id = config.secrets.slackClientId;
  const secret = config.secrets.slackClientSecret;
  if (!id || !secret) return [];
  const probe = { client_id: id, client_secret: secret, code: PROBE_CODE };
  return [
    group(config, [
      apiCheck(config, CLIENT, 'oauth.v2.access', undefined, probe),
      { name: 'slack.oauth_redirect', judge: () => redirectCheck(config) },
    ]),
  ];
}

/** The Slack checks for this configuration (none when Slack is not configured). */
export function slackChecks(config: Config): PlatformChecks[] {
  const bot = config.secrets.slackBotToken;
  if (config.slackTransport && config.slackOAuth) return oauthChecks(config);
  if (!config.slackTransport || !bot) return [];
  const groups = [
    group(config, [
      apiCheck(config, AUTH, 'auth.test', bot),
      {
        name: 'slack.scopes',
        needs: 'slack.auth',
        judge: (a) => scopesCheck(a('auth.test').header('x-oauth-scopes'), manifestBotScopes()),
      },
    ]),
  ];
  const app = config.secrets.slackAppToken;
  if (config.slackTransport === 'socket' && app) {
    groups.push(
      group(config, [
        // Only asks for a connection URL (single-use, expires unused); no socket is opened.
        apiCheck(config, SOCKET, 'apps.connections.open', app),
      ]),
    );
  }
  return groups;
}
