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
}

export class OAuthWorkspaces {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly #codes = new Map<string, PendingCode>();
  /** By token, revoked ones kept so their use answers token_revoked. */
  readonly #byToken = new Map<string, Workspace>();
  readonly #appId: string;
  readonly #teamDomain: string;

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
      botToken: `xoxb-${randomBytes(5).readUIntBE(0, 5)}-${randomBytes(5).readUIntBE(0, 5)}-${randomBytes(12).toString('base64url')}`,
      revoked: false,
    };
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
    };
  }

  byToken(token: string): Workspace | undefined {
    return this.#byToken.get(token);
  }

  /** The live installation that serves this team (its own, or its org's org-wide one). */
  forTeam(teamId: string, enterpriseId?: string): Workspace | undefined {
    for (const ws of this.#byToken.values()) {
      if (ws.revoked) continue;
      if (!ws.orgWide && ws.teamId === teamId) return ws;
      if (ws.orgWide && enterpriseId !== undefined && ws.enterpriseId === enterpriseId) return ws;
    }
    return undefined;
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
    if (ws !== undefined) ws.revoked = true;
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
