// Group sync for knowledge access (adapters/slack/slack-groups.ts, adapters/discord/discord-groups.ts)
// against the emulators over loopback: a workspace of 10,000 users in 40 Slack user groups (1–4
// each), and a guild of 10,000 members holding 1–4 of 40 roles. Reports a full sync (every group's
// members read and the memberships replaced), one group read again after a subteam event, and the
// lookup a knowledge question then makes (the principal's platform groups).

import { WebClient } from '@slack/web-api';
import { Client } from 'discord.js';
import { DiscordGroupSync } from '../adapters/discord/discord-groups.ts';
import { SlackGroupSync } from '../adapters/slack/slack-groups.ts';
import { PlatformGroups } from '../src/knowledge/platform-groups.ts';
import { silentLogger } from '../src/log/logger.ts';
import { startDiscordEmulator } from '../test/emulators/discord/index.ts';
import { startSlackEmulator } from '../test/emulators/slack/index.ts';
import { mulberry32 } from '../test/support/prng.ts';
import { fmt, percentile } from './stats.ts';

const USERS = 10_000;
const GROUPS = 40;
const RUNS = 5;
const LOOKUPS = 100_000;

function memberships(rand: () => number, users: readonly string[], groups: readonly string[]) {
  const byGroup = new Map<string, string[]>(groups.map((g) => [g, []]));
  for (const u of users) {
    const n = 1 + Math.floor(rand() * 4);
    for (const g of new Set(Array.from({ length: n }, () => groups[Math.floor(rand() * GROUPS)]))) {
      byGroup.get(g as string)?.push(u);
    }
  }
  return byGroup;
}

async function timed(runs: number, fn: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    out.push(performance.now() - t);
  }
  return out;
}

function lookupP95(groups: PlatformGroups, ids: readonly string[]): number {
  const times: number[] = [];
  for (let i = 0; i < LOOKUPS; i++) {
    const id = ids[i % ids.length] as string;
    const t = performance.now();
    groups.groupsOf(id);
    times.push(performance.now() - t);
  }
  return percentile(times, 95) * 1000;
}

async function benchSlackGroups(lines: string[]): Promise<void> {
  const rand = mulberry32(13);
  const slack = await startSlackEmulator({ signingSecret: 'bench' });
  try {
    const users = Array.from({ length: USERS }, (_, n) => `UG${String(n).padStart(6, '0')}`);
    const ids = Array.from({ length: GROUPS }, (_, n) => `SG${String(n).padStart(4, '0')}`);
    const byGroup = memberships(rand, users, ids);
    for (const [id, members] of byGroup) {
      await slack.setUserGroup(id, { handle: id.toLowerCase(), users: members, notify: false });
    }
    const sink = new PlatformGroups();
    const sync = new SlackGroupSync({
      client: new WebClient(slack.botToken, { slackApiUrl: slack.apiUrl }),
      sink,
      tokenFor: async () => slack.botToken,
      log: silentLogger(),
    });
    const full = await timed(RUNS, () => sync.syncWorkspace(slack.teamId));
    const biggest = [...byGroup].sort((a, b) => b[1].length - a[1].length)[0];
    const one = await timed(RUNS, () =>
      sync.onSubteamEvent(slack.teamId, {
        type: 'subteam_members_changed',
        subteam_id: biggest?.[0] ?? '',
      }),
    );
    lines.push(
      `slack user group sync, 10,000 users in 40 groups (usergroups.list + 40 usergroups.users.list): median ${fmt(percentile(full, 50))}, max ${fmt(Math.max(...full))} over ${RUNS} runs`,
      `slack one group re-read on a subteam event (${biggest?.[1].length ?? 0} members): median ${fmt(percentile(one, 50))}`,
      `platform group lookup per question (10,000-user workspace): p95 ${(
        lookupP95(
          sink,
          users.map((u) => `slack:${slack.teamId}:${u}`),
        )
      ).toFixed(2)} µs over ${LOOKUPS.toLocaleString('en-US')} lookups`,
    );
  } finally {
    await slack.close();
  }
}

async function benchDiscordRoles(lines: string[]): Promise<void> {
  const rand = mulberry32(17);
  const d = await startDiscordEmulator();
  try {
    const guild = d.guilds[0]?.id ?? '';
    const roles = Array.from({ length: GROUPS }, (_, n) => d.addRole(guild, `r${n}`, 0n));
    const users = Array.from({ length: USERS }, () => d.snowflake());
    const byRole = memberships(rand, users, roles);
    const rolesOf = new Map<string, string[]>();
    for (const [role, members] of byRole) {
      for (const u of members) rolesOf.set(u, [...(rolesOf.get(u) ?? []), role]);
    }
    for (const u of users) d.addMember(guild, u, rolesOf.get(u) ?? []);
    const client = new Client({ intents: [], rest: { api: d.apiUrl } });
    client.rest.setToken(d.botToken);
    const sync = new DiscordGroupSync(client, new PlatformGroups(), silentLogger(), 60);
    const full = await timed(RUNS, () => sync.syncGuild(guild));
    lines.push(
      `discord role sync, 10,000 members holding 1–4 of 40 roles (GET /guilds/{id}/members, pages of 1,000): median ${fmt(percentile(full, 50))}, max ${fmt(Math.max(...full))} over ${RUNS} runs`,
    );
  } finally {
    await d.close();
  }
}

export async function benchGroupSync(): Promise<string[]> {
  const lines: string[] = [];
  await benchSlackGroups(lines);
  await benchDiscordRoles(lines);
  return lines;
}
