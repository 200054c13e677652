// Slack's OAuth v2 install flow and the workspaces it creates: the authorize step (a person in a
// workspace approves the app: a one-time code comes back on the redirect URL with the app's
// state), oauth.v2.access (client credentials + code → a bot token of that workspace), and the
// tokens' end (auth.revoke, uninstall). Each installed workspace has its own bot user, bot id and
// token; the Web API acts as that workspace for calls made with its token.
import { randomBytes } from 'node:crypto';
import { slackId } from './event-envelope.ts';
import type { ApiArgs, ApiResult, Identity } from './methods/context.ts';
import type { ApproveInstallInput, InstalledWorkspace } from './types.ts';

// Slack's codes expire after ten minutes and work once.
const CODE_LIFETIME_MS = 10 * 60_000;

interface PendingCode {
  teamId: string;
  enterpriseId: string | undefined;
  orgWide: boolean;
  userId: string;
  scopes: string;
  redirectUri: string | undefined;
  expiresAt: number;
}

export interface Workspace extends InstalledWorkspace {
  revoked: boolean;
  /** Token rotation: when this access token stops working (ms). */
  expiresAt?: number;
  /** Token rotation: the single-use token that gets the next access token. */
  refreshToken?: string;
}

export class OAuthWorkspaces {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly #codes = new Map<string, PendingCode>();
  /** By token, revoked ones kept so their use answers token_revoked. */
  readonly #byToken = new Map<string, Workspace>();
  /** By refresh token, until it is used (Slack revokes a refresh token once exchanged). */
  readonly #byRefresh = new Map<string, Workspace>();
  readonly #appId: string;
  readonly #teamDomain: string;
  /** Token rotation on (the app setting): access tokens live this long, in seconds. */
  tokenLifetimeSec: number | undefined;
  /** How many times a refresh token was exchanged. */
  refreshes = 0;

  constructor(appId: string, teamDomain: string, clientId?: string, clientSecret?: string) {
    this.#appId = appId;
    this.#teamDomain = teamDomain;
    this.clientId = clientId ?? `${Date.now()}.${randomBytes(6).readUIntBE(0, 6)}`;
    this.clientSecret = clientSecret ?? randomBytes(16).toString('hex');
  }

  /** The person approves the app on Slack's authorize page: where the browser is sent next. */
  approve(authorizeUrl: string, o: ApproveInstallInput): { redirectUrl: string; code: string } {
    const url = new URL(authorizeUrl);
    if (url.pathname !== '/oauth/v2/authorize') {
      throw new Error(`Slack emulator: not an authorize URL: ${url.pathname}`);
    }
    const q = url.searchParams;
    if (q.get('client_id') !== this.clientId) throw new Error('Slack emulator: invalid_client_id');
    const scopes = q.get('scope') ?? '';
    if (scopes === '' && (q.get('user_scope') ?? '') === '') {
      throw new Error('Slack emulator: invalid_scope (no scopes requested)');
    }
    const redirectUri = q.get('redirect_uri') ?? o.redirectUri;
    if (redirectUri === undefined) {
      throw new Error('Slack emulator: no redirect_uri given and none configured for the app');
    }
    const code = `${Date.now()}.${randomBytes(12).toString('hex')}`;
    this.#codes.set(code, {
      teamId: o.teamId,
      enterpriseId: o.enterpriseId,
      orgWide: o.orgWide === true,
      userId: o.userId ?? 'U0EMUINST1',
      scopes,
      redirectUri: q.get('redirect_uri') ?? undefined,
      expiresAt: Date.now() + CODE_LIFETIME_MS,
    });
    const back = new URL(redirectUri);
    back.searchParams.set('code', code);
    const state = q.get('state');
    if (state !== null) back.searchParams.set('state', state);
    return { redirectUrl: back.href, code };
  }

  /** oauth.v2.access: client credentials from the form or HTTP Basic auth. */
  exchange(args: ApiArgs, basic: { id: string; secret: string } | undefined): ApiResult {
    const id = basic?.id ?? (typeof args.client_id === 'string' ? args.client_id : undefined);
    const secret =
      basic?.secret ?? (typeof args.client_secret === 'string' ? args.client_secret : undefined);
    if (id !== this.clientId) return { ok: false, error: 'invalid_client_id' };
    if (secret !== this.clientSecret) return { ok: false, error: 'bad_client_secret' };
    if (args.grant_type === 'refresh_token') return this.#refresh(args.refresh_token);
    const code = typeof args.code === 'string' ? args.code : '';
    const pending = this.#codes.get(code);
    this.#codes.delete(code);
    if (pending === undefined || pending.expiresAt < Date.now()) {
      return { ok: false, error: 'invalid_code' };
    }
    if (pending.redirectUri !== undefined && args.redirect_uri !== pending.redirectUri) {
      return { ok: false, error: 'bad_redirect_uri' };
    }
    const ws: Workspace = {
      teamId: pending.teamId,
      enterpriseId: pending.enterpriseId,
      orgWide: pending.orgWide,
      botUserId: slackId('U', 9),
      botId: slackId('B', 9),
      botToken: newBotToken(this.tokenLifetimeSec !== undefined),
      revoked: false,
    };
    const rotation = this.#rotating(ws);
    // A reinstall replaces the workspace's old token.
    for (const old of this.#byToken.values()) {
      if (this.#sameInstall(old, ws)) old.revoked = true;
    }
    this.#byToken.set(ws.botToken, ws);
    const team = pending.orgWide ? null : { id: pending.teamId, name: `Team ${pending.teamId}` };
    return {
      ok: true,
      access_token: ws.botToken,
      token_type: 'bot',
      scope: pending.scopes,
      bot_user_id: ws.botUserId,
      app_id: this.#appId,
      team,
      enterprise:
        pending.enterpriseId === undefined
          ? null
          : { id: pending.enterpriseId, name: `Org ${pending.enterpriseId}` },
      authed_user: { id: pending.userId },
      is_enterprise_install: pending.orgWide,
      ...rotation,
    };
  }

  /** With rotation on: an expiry and a refresh token for the workspace's new access token. */
  #rotating(ws: Workspace): { refresh_token?: string; expires_in?: number } {
    if (this.tokenLifetimeSec === undefined) return {};
    ws.expiresAt = Date.now() + this.tokenLifetimeSec * 1000;
    ws.refreshToken = `xoxe-1-${randomBytes(24).toString('base64url')}`;
    this.#byRefresh.set(ws.refreshToken, ws);
    return { refresh_token: ws.refreshToken, expires_in: this.tokenLifetimeSec };
  }

  /**
   * grant_type=refresh_token: a new access token for the same installation; the refresh token is
   * used up (a second use answers invalid_refresh_token). The old access token lives until it expires.
   */
  #refresh(refreshToken: unknown): ApiResult {
    const old = typeof refreshToken === 'string' ? this.#byRefresh.get(refreshToken) : undefined;
    if (old === undefined || old.revoked) return { ok: false, error: 'invalid_refresh_token' };
    this.#byRefresh.delete(refreshToken as string);
    this.refreshes += 1;
    const ws: Workspace = { ...old, botToken: newBotToken(true), revoked: false };
    const rotation = this.#rotating(ws);
    this.#byToken.set(ws.botToken, ws);
    return {
      ok: true,
      access_token: ws.botToken,
      token_type: 'bot',
      app_id: this.#appId,
      team: ws.orgWide ? null : { id: ws.teamId },
      enterprise: ws.enterpriseId === undefined ? null : { id: ws.enterpriseId },
      ...rotation,
    };
  }

  byToken(token: string): Workspace | undefined {
    return this.#byToken.get(token);
  }

  /** The live installation that serves this team (its own, or its org's org-wide one). */
  forTeam(teamId: string, enterpriseId?: string): Workspace | undefined {
    // The newest: after a token refresh, the installation's current token.
    let found: Workspace | undefined;
    for (const ws of this.#byToken.values()) {
      if (ws.revoked) continue;
      if (!ws.orgWide && ws.teamId === teamId) found = ws;
      if (ws.orgWide && enterpriseId !== undefined && ws.enterpriseId === enterpriseId) found = ws;
    }
    return found;
  }

  /** Whether any installation (live or not) was made for this team or its org. */
  knows(teamId: string, enterpriseId?: string): boolean {
    for (const ws of this.#byToken.values()) {
      if (!ws.orgWide && ws.teamId === teamId) return true;
      if (ws.orgWide && enterpriseId !== undefined && ws.enterpriseId === enterpriseId) return true;
    }
    return false;
  }

  /** Revokes every token of the installation serving this team; the revoked workspace, if any. */
  revoke(teamId: string, enterpriseId?: string): Workspace | undefined {
    const ws = this.forTeam(teamId, enterpriseId);
    // Every token of the installation: refreshed ones share its ids.
    if (ws !== undefined)
      for (const t of this.#byToken.values()) if (this.#sameInstall(t, ws)) t.revoked = true;
    return ws;
  }

  /** The Web API acts as the token's workspace. */
  identity(base: Identity, ws: Workspace): Identity {
    return {
      ...base,
      teamId: ws.orgWide ? (ws.enterpriseId ?? base.teamId) : ws.teamId,
      teamDomain: ws.orgWide
        ? `${this.#teamDomain}-org`
        : `${this.#teamDomain}-${ws.teamId.toLowerCase()}`,
      botUserId: ws.botUserId,
      botId: ws.botId,
      botToken: ws.botToken,
    };
  }

  #sameInstall(a: Workspace, b: Workspace): boolean {
    return (
      a.orgWide === b.orgWide &&
      (a.orgWide ? a.enterpriseId === b.enterpriseId : a.teamId === b.teamId)
    );
  }
}

function newBotToken(rotating: boolean): string {
  const tail = `${randomBytes(5).readUIntBE(0, 5)}-${randomBytes(5).readUIntBE(0, 5)}-${randomBytes(12).toString('base64url')}`;
  // Slack's expiring tokens carry the xoxe. prefix.
  return rotating ? `xoxe.xoxb-1-${tail}` : `xoxb-${tail}`;
}
