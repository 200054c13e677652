// auth.test (bot token) and apps.connections.open (app-level token: the Socket Mode handshake).
import type { ApiContext, ApiResult, MethodSpec } from './context.ts';

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

function connectionsOpen(_args: unknown, ctx: ApiContext): ApiResult {
  return { ok: true, url: ctx.openSocketUrl() };
}

export const authMethods: Record<string, MethodSpec> = {
  'auth.test': { token: 'bot', handle: authTest },
  'apps.connections.open': { token: 'app', handle: connectionsOpen },
};
