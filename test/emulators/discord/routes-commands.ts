// Application command registration, global and per guild: bulk overwrite (PUT), upsert (POST),
// list and delete, with Discord's validation of names, descriptions and option order.
import { type Answer, Errors, formError, noContent, ok } from './api-errors.ts';
import type { EmuCtx } from './context.ts';
import type { Req, Route } from './http-api.ts';
import { snowflake } from './snowflake.ts';

const NAME_RE = /^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;

export function commandRoutes(ctx: EmuCtx): Route[] {
  const appOk = (r: Req) => r.params.app === ctx.applicationId;
  const scoped = (prefix: string, scope: (r: Req) => string | undefined): Route[] => [
    {
      method: 'GET',
      path: prefix,
      handle: (r) => {
        const s = scope(r);
        if (!appOk(r)) return Errors.unknownApplication();
        return s === undefined ? Errors.unknownGuild() : ok(renderCommands(ctx, s));
      },
    },
    {
      method: 'PUT',
      path: prefix,
      handle: (r) => {
        const s = scope(r);
        if (!appOk(r)) return Errors.unknownApplication();
        if (s === undefined) return Errors.unknownGuild();
        if (!Array.isArray(r.body)) return formError([], 'BASE_TYPE_ARRAY', 'Must be an array.');
        const bad = validateCommands(r.body as Record<string, unknown>[]);
        if (bad !== undefined) return bad;
        const old = ctx.commands.get(s) ?? [];
        // Overwriting keeps the ids of commands that keep their name, as Discord does.
        ctx.commands.set(
          s,
          (r.body as Record<string, unknown>[]).map((data) => ({
            id: old.find((c) => c.data.name === data.name)?.id ?? snowflake(),
            version: snowflake(),
            data,
          })),
        );
        return ok(renderCommands(ctx, s));
      },
    },
    {
      method: 'POST',
      path: prefix,
      handle: (r) => {
        const s = scope(r);
        if (!appOk(r)) return Errors.unknownApplication();
        if (s === undefined) return Errors.unknownGuild();
        const data = (r.body ?? {}) as Record<string, unknown>;
        const bad = validateCommands([data]);
        if (bad !== undefined) return bad;
        const list = ctx.commands.get(s) ?? [];
        const existing = list.find((c) => c.data.name === data.name);
        const rec = { id: existing?.id ?? snowflake(), version: snowflake(), data };
        ctx.commands.set(s, [...list.filter((c) => c !== existing), rec]);
        return ok(
          renderCommands(ctx, s).find((c) => c.id === rec.id),
          existing ? 200 : 201,
        );
      },
    },
    {
      method: 'DELETE',
      path: `${prefix}/:command`,
      handle: (r) => {
        const s = scope(r);
        const list = s === undefined ? undefined : ctx.commands.get(s);
        if (s === undefined || list?.some((c) => c.id === r.params.command) !== true) {
          return Errors.unknownCommand();
        }
        ctx.commands.set(
          s,
          list.filter((c) => c.id !== r.params.command),
        );
        return noContent();
      },
    },
  ];

  return [
    ...scoped('/applications/:app/commands', () => 'global'),
    ...scoped(
      '/applications/:app/guilds/:guild/commands',
      (r) => ctx.world.guilds.get(r.params.guild ?? '')?.id,
    ),
  ];
}

function renderCommands(ctx: EmuCtx, scope: string): Record<string, unknown>[] {
  return (ctx.commands.get(scope) ?? []).map((c) => ({
    id: c.id,
    application_id: ctx.applicationId,
    version: c.version,
    default_member_permissions: c.data.default_member_permissions ?? null,
    type: c.data.type ?? 1,
    name: c.data.name,
    name_localizations: c.data.name_localizations ?? null,
    description: c.data.description ?? '',
    description_localizations: c.data.description_localizations ?? null,
    ...(Array.isArray(c.data.options) ? { options: c.data.options } : {}),
    // Installation and interaction contexts exist only on global commands; a command without
    // them takes the app's installation default (servers) and every context.
    ...(scope === 'global'
      ? {
          integration_types: c.data.integration_types ?? [0],
          contexts: c.data.contexts ?? null,
        }
      : { guild_id: scope }),
    dm_permission: c.data.dm_permission ?? true,
    nsfw: c.data.nsfw === true,
  }));
}

function validateCommands(list: Record<string, unknown>[]): Answer | undefined {
  if (list.length > 100) {
    return formError([], 'BASE_TYPE_MAX_LENGTH', 'Must be 100 or fewer in length.');
  }
  const seen = new Set<string>();
  for (const [i, c] of list.entries()) {
    const at = String(i);
    const type = (c.type ?? 1) as number;
    const name = c.name;
    // Chat input names follow NAME_RE in lowercase; user and message commands may be mixed case
    // and include spaces (1–32 characters).
    const valid =
      typeof name === 'string' &&
      (type === 1
        ? NAME_RE.test(name) && name === name.toLowerCase()
        : [...name].length >= 1 && [...name].length <= 32 && name.trim() === name);
    if (!valid) {
      return formError([at, 'name'], 'APPLICATION_COMMAND_INVALID_NAME', 'Command name is invalid');
    }
    if (seen.has(`${type}:${name}`)) {
      return formError(
        [at],
        'APPLICATION_COMMANDS_DUPLICATE_NAME',
        `Application command names must be unique`,
      );
    }
    seen.add(`${type}:${name}`);
    const badContext = validateContexts(c, [at]);
    if (badContext !== undefined) return badContext;
    const bad = validateDescribed(c, type === 1, [at]);
    if (bad !== undefined) return bad;
  }
  return undefined;
}

/** `integration_types` ⊆ {0 server, 1 user}, `contexts` ⊆ {0 server, 1 bot DM, 2 private channel}. */
function validateContexts(c: Record<string, unknown>, at: string[]): Answer | undefined {
  const fields: [string, number[]][] = [
    ['integration_types', [0, 1]],
    ['contexts', [0, 1, 2]],
  ];
  for (const [field, allowed] of fields) {
    const v = c[field];
    if (v === undefined || v === null) continue;
    if (!Array.isArray(v)) return formError([...at, field], 'BASE_TYPE_ARRAY', 'Must be an array.');
    for (const [i, x] of v.entries()) {
      if (typeof x !== 'number' || !allowed.includes(x)) {
        return formError(
          [...at, field, String(i)],
          'BASE_TYPE_CHOICES',
          `Value must be one of ${JSON.stringify(allowed)}.`,
        );
      }
    }
  }
  return undefined;
}

function validateDescribed(
  c: Record<string, unknown>,
  needsDescription: boolean,
  at: string[],
): Answer | undefined {
  const d = c.description;
  if (needsDescription && (typeof d !== 'string' || d.length < 1 || d.length > 100)) {
    return formError(
      [...at, 'description'],
      'BASE_TYPE_BAD_LENGTH',
      'Must be between 1 and 100 in length.',
    );
  }
  const options = Array.isArray(c.options) ? (c.options as Record<string, unknown>[]) : [];
  if (options.length > 25) {
    return formError([...at, 'options'], 'BASE_TYPE_MAX_LENGTH', 'Must be 25 or fewer in length.');
  }
  let optionalSeen = false;
  for (const [i, o] of options.entries()) {
    const oat = [...at, 'options', String(i)];
    if (typeof o.name !== 'string' || !NAME_RE.test(o.name) || o.name !== o.name.toLowerCase()) {
      return formError(
        [...oat, 'name'],
        'APPLICATION_COMMAND_INVALID_NAME',
        'Command name is invalid',
      );
    }
    if (typeof o.type !== 'number' || o.type < 1 || o.type > 11) {
      return formError([...oat, 'type'], 'BASE_TYPE_CHOICES', 'Value must be one of {1, …, 11}.');
    }
    if (o.required === true && optionalSeen) {
      return formError(
        [...at, 'options'],
        'APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID',
        'Required options must be placed before non-required options',
      );
    }
    if (o.required !== true) optionalSeen = true;
    const bad = validateDescribed(o, true, oat);
    if (bad !== undefined) return bad;
  }
  return undefined;
}
