// Application-level routes: gateway discovery, the bot user, the application, DMs and guild
// reads (what discord.js fetches on its own, e.g. client.application.fetch()).

import { type Answer, Errors, ok } from './api-errors.ts';
import type { EmuCtx } from './context.ts';
import type { Req, Route } from './http-api.ts';
import { commandRoutes } from './routes-commands.ts';

export function appRoutes(ctx: EmuCtx): Route[] {
  const bot = () => ctx.render.user(ctx.world.botUser);
  const guild = (r: Req) => ctx.world.guilds.get(r.params.guild ?? '');
  // A server that did not add the bot answers 403 Missing Access to every read.
  const guildRoute = (fn: (r: Req) => Answer) => (r: Req) =>
    guild(r)?.botMember === false ? Errors.missingAccess() : fn(r);

  return [
    { method: 'GET', path: '/gateway', auth: false, handle: () => ok({ url: ctx.gatewayUrl() }) },
    {
      method: 'GET',
      path: '/gateway/bot',
      handle: () =>
        ok({
          url: ctx.gatewayUrl(),
          shards: 1,
          session_start_limit: {
            total: 1000,
            remaining: ctx.sessionStartRemaining,
            reset_after: 86_400_000,
            max_concurrency: 1,
          },
        }),
    },
    {
      method: 'GET',
      path: '/users/@me',
      handle: () =>
        ok({ ...bot(), verified: true, mfa_enabled: false, email: null, locale: 'en-US' }),
    },
    {
      method: 'GET',
      path: '/users/:user',
      handle: (r) => {
        const u = ctx.world.users.get(r.params.user ?? '');
        return u === undefined ? Errors.unknownUser() : ok(ctx.render.user(u));
      },
    },
    {
      method: 'POST',
      path: '/users/@me/channels',
      handle: (r) => {
        const id = String((r.body as { recipient_id?: unknown } | undefined)?.recipient_id ?? '');
        if (!ctx.world.users.has(id) || id === ctx.botId) return Errors.unknownUser();
        return ok(ctx.render.channel(ctx.world.dmChannel(id)));
      },
    },
    { method: 'GET', path: '/applications/@me', handle: () => ok(application(ctx)) },
    { method: 'GET', path: '/oauth2/applications/@me', handle: () => ok(application(ctx)) },
    ...commandRoutes(ctx),
    {
      method: 'GET',
      path: '/guilds/:guild',
      handle: guildRoute((r) => {
        const g = guild(r);
        if (g === undefined) return Errors.unknownGuild();
        const {
          channels: _c,
          threads: _t,
          members: _m,
          voice_states: _v,
          presences: _p,
          ...rest
        } = ctx.render.guildCreate(g) as unknown as Record<string, unknown>;
        return ok(rest);
      }),
    },
    {
      method: 'GET',
      path: '/guilds/:guild/channels',
      handle: guildRoute((r) => {
        const g = guild(r);
        if (g === undefined) return Errors.unknownGuild();
        return ok(ctx.world.guildChannels(g.id).map((c) => ctx.render.channel(c)));
      }),
    },
    {
      method: 'GET',
      path: '/guilds/:guild/roles',
      handle: guildRoute((r) => {
        const g = guild(r);
        return g === undefined ? Errors.unknownGuild() : ok(g.roles.map((x) => ctx.render.role(x)));
      }),
    },
    {
      // Needs the GUILD_MEMBERS intent on the real API; paginated by user id (`after`, `limit` ≤ 1000).
      method: 'GET',
      path: '/guilds/:guild/members',
      handle: guildRoute((r) => {
        const g = guild(r);
        if (g === undefined) return Errors.unknownGuild();
        const limit = Math.min(Math.max(Number(r.query.get('limit') ?? 1) || 1, 1), 1000);
        const after = BigInt(r.query.get('after') ?? '0');
        const ids = [...new Set(g.memberIds)]
          .filter((id) => BigInt(id) > after)
          .sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1))
          .slice(0, limit);
        return ok(ids.map((id) => ctx.render.member(g, id)));
      }),
    },
    {
      method: 'GET',
      path: '/guilds/:guild/members/:user',
      handle: guildRoute((r) => {
        const g = guild(r);
        if (g === undefined) return Errors.unknownGuild();
        const id = r.params.user === '@me' ? ctx.botId : (r.params.user ?? '');
        if (!g.memberIds.includes(id) && !ctx.world.users.has(id)) return Errors.unknownMember();
        return ok(ctx.render.member(g, id));
      }),
    },
  ];
}

function application(ctx: EmuCtx): Record<string, unknown> {
  return {
    id: ctx.applicationId,
    name: ctx.world.botUser.username,
    icon: null,
    description: '',
    summary: '',
    type: null,
    bot: ctx.render.user(ctx.world.botUser),
    bot_public: false,
    bot_require_code_grant: false,
    verify_key: 'a'.repeat(64),
    flags: ctx.applicationFlags,
    owner: ctx.render.user(ctx.world.user([...ctx.world.guilds.values()][0]?.ownerId ?? '0')),
    team: null,
    approximate_guild_count: ctx.world.guilds.size,
    // Installable to servers and to people's accounts (Installation → Installation Contexts).
    integration_types_config: { 0: {}, 1: {} },
  };
}
