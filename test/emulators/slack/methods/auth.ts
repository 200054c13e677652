// auth.test (bot token) and apps.connections.open (app-level token: the Socket Mode handshake).
import type { ApiArgs, ApiContext, ApiResult, MethodSpec } from './context.ts';

function authTest(_args: unknown, ctx: ApiContext): ApiResult {
  return {
    ok: true,
    url: `https://${ctx.ids.teamDomain}.slack.com/`,
    team: 'Threadmind Emulator',
    user: 'threadmind',
    team_id: ctx.ids.teamId,
    user_id: ctx.ids.botUserId,
    bot_id: ctx.ids.botId,
    is_enterprise_install: false,
  };
}

/** auth.revoke: the calling token stops working. */
function authRevoke(args: ApiArgs, ctx: ApiContext): ApiResult {
  const ws = ctx.oauth.byToken(ctx.ids.botToken);
  if (args.test === 'true' || args.test === true) return { ok: true, revoked: false };
  if (ws === undefined) return { ok: false, error: 'not_allowed_token_type' };
  ws.revoked = true;
  return { ok: true, revoked: true };
}

function connectionsOpen(_args: unknown, ctx: ApiContext): ApiResult {
  return { ok: true, url: ctx.openSocketUrl() };
}

export const authMethods: Record<string, MethodSpec> = {
  'auth.test': { token: 'bot', handle: authTest },
  'apps.connections.open': { token: 'app', handle: connectionsOpen },
  'auth.revoke': { token: 'bot', handle: authRevoke },
  // Answered by the OAuth flow in web-api.ts (it needs the request's Basic auth header).
  'oauth.v2.access': { token: 'client', handle: () => ({ ok: false, error: 'invalid_code' }) },
};
