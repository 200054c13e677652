// Discord's part of `npm run doctor`: the bot token, the Message Content intent of the
// application, and the slash commands against those defined in commands.ts. In the adapter
// because the commands and the application flags are Discord knowledge; src/doctor only runs it
// (src/doctor/platform-checks.ts).
import { ApplicationFlags } from 'discord.js';
import type { Config } from '../../src/config/schema.ts';
import type { CheckResult } from '../../src/model/check-result.ts';
import type { PlatformCheck, PlatformChecks, ProbeCall } from '../../src/model/platform-checks.ts';
import { COMMANDS } from './commands.ts';

/** Either flag means the portal's Message Content toggle is on (the first for verified apps in 100+ servers). */
const MESSAGE_CONTENT =
  ApplicationFlags.GatewayMessageContent | ApplicationFlags.GatewayMessageContentLimited;

/** A GET of Discord's API with the bot token. */
function get(config: Config, token: string, path: string): ProbeCall {
  return {
    url: `${config.discord.apiUrl.replace(/\/+$/, '')}/v10${path}`,
    label: `GET ${path}`,
    headers: { authorization: `Bot ${token}` },
  };
}

/**
 * What a command does for the person using it and where it is offered: its name, description,
 * options, installations (Discord's default: servers only) and contexts (default: everywhere).
 */
function signature(c: Record<string, unknown>): string {
  const options = Array.isArray(c.options) ? (c.options as Record<string, unknown>[]) : [];
  const opts = options.map(
    (o) => `${String(o.name)}:${String(o.type)}:${o.required === true ? 'r' : 'o'}`,
  );
  const installs = Array.isArray(c.integration_types) ? c.integration_types.join(',') : '0';
  const contexts = Array.isArray(c.contexts) ? c.contexts.join(',') : '0,1,2';
  return `${String(c.name)}|${String(c.description ?? '')}|${opts.join(',')}|${installs}|${contexts}`;
}

function commandsCheck(registered: Record<string, unknown>[]): CheckResult {
  const byName = new Map(registered.map((c) => [String(c.name), c]));
  const missing = COMMANDS.filter((c) => !byName.has(c.name)).map((c) => `/${c.name}`);
  const changed = COMMANDS.filter((c) => {
    const r = byName.get(c.name);
    return r !== undefined && signature(r) !== signature(c as unknown as Record<string, unknown>);
  }).map((c) => `/${c.name}`);
  const register =
    'Run `npm run discord:register` (global; Discord may take up to an hour to show them).';
  if (missing.length > 0) {
    return {
      name: 'discord.commands',
      status: 'warn',
      summary: `slash commands not registered globally: ${missing.join(', ')} (mentions still work)`,
      fix: `${register} Commands registered in one guild with --guild are not seen by this check.`,
    };
  }
  if (changed.length > 0) {
    return {
      name: 'discord.commands',
      status: 'warn',
      summary: `registered slash commands differ from this version's: ${changed.join(', ')}`,
      fix: register,
    };
  }
  return {
    name: 'discord.commands',
    status: 'ok',
    summary: `${COMMANDS.length} slash commands registered globally: ${COMMANDS.map((c) => `/${c.name}`).join(', ')}`,
  };
}

function intentCheck(flags: number): CheckResult {
  if ((flags & MESSAGE_CONTENT) !== 0) {
    return {
      name: 'discord.message_content',
      status: 'ok',
      summary: 'the Message Content intent is on',
    };
  }
  return {
    name: 'discord.message_content',
    status: 'fail',
    summary:
      'the Message Content intent is off: Discord refuses the gateway login (close code 4014) for a bot that asks for it',
    fix: 'Developer Portal → your application → Bot → Privileged Gateway Intents → turn on Message Content Intent (a bot in 100 or more servers needs Discord to approve it).',
  };
}

/** The Discord checks for this configuration (none when Discord is not configured). */
export function discordChecks(config: Config): PlatformChecks[] {
  const token = config.secrets.discordToken;
  const appId = config.discordApplicationId;
  if (!token || !appId) return [];
  const checks: PlatformCheck[] = [
    {
      name: 'discord.token',
      calls: { me: get(config, token, '/users/@me'), app: get(config, token, '/applications/@me') },
      judge(answer) {
        const me = answer('me').body;
        const app = answer('app').body;
        if (String(app.id) !== appId)
          return {
            name: 'discord.token',
            status: 'fail',
            summary: `DISCORD_APPLICATION_ID (${appId}) is not the application of this token (${String(app.id)})`,
            fix: `Export DISCORD_APPLICATION_ID=${String(app.id)} (General Information → Application ID), or the token of application ${appId}.`,
          };
        return {
          name: 'discord.token',
          status: 'ok',
          summary: `bot token accepted: ${String(me.username)} (${String(me.id)}), application ${appId}`,
        };
      },
    },
    {
      name: 'discord.message_content',
      needs: 'discord.token',
      judge: (answer) => {
        const flags = answer('app').body.flags;
        return intentCheck(typeof flags === 'number' ? flags : 0);
      },
    },
    {
      name: 'discord.commands',
      needs: 'discord.token',
      calls: { commands: get(config, token, `/applications/${appId}/commands`) },
      judge: (answer) => {
        const list: unknown = answer('commands').body;
        return commandsCheck(Array.isArray(list) ? (list as Record<string, unknown>[]) : []);
      },
    },
  ];
  return [
    {
      platform: 'Discord',
      api: {
        what: `Discord's API at ${config.discord.apiUrl}`,
        fix: 'Check DISCORD_API_URL (default https://discord.com/api) and that this host may open connections to it (firewall, proxy, DNS).',
      },
      refused: {
        401: {
          summary: 'Discord refused DISCORD_TOKEN (401 Unauthorized)',
          fix: 'Developer Portal → your application → Bot → Reset Token, and export the new token as DISCORD_TOKEN.',
        },
      },
      checks,
    },
  ];
}
