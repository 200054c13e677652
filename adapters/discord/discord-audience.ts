// Who can read a Discord channel: the guild's members whose permissions, after the channel's
// overwrites, include View Channel. Discord's own order: @everyone and role permissions (owner and
// Administrator see everything), then the @everyone overwrite, the member's roles' overwrites
// together, and the member's own overwrite.
import { type APIGuildMember, type APIRole, type REST, Routes } from 'discord.js';

const VIEW_CHANNEL = 1n << 10n;
const ADMINISTRATOR = 1n << 3n;
const MEMBERS_PAGE = 1000;

export interface Overwrite {
  id: string;
  type: number;
  allow: string;
  deny: string;
}

export interface ChannelFacts {
  guildId: string;
  ownerId: string;
  roles: readonly Pick<APIRole, 'id' | 'permissions'>[];
  overwrites: readonly Overwrite[];
}

/** What @everyone and the member's roles allow, before any channel's overwrites. */
function rolePermissions(
  guildId: string,
  roles: readonly Pick<APIRole, 'id' | 'permissions'>[],
  roleIds: readonly string[],
): bigint {
  const perm = new Map(roles.map((r) => [r.id, BigInt(r.permissions)]));
  let p = perm.get(guildId) ?? 0n;
  for (const id of roleIds) p |= perm.get(id) ?? 0n;
  return p;
}

/** The guild's members, page by page (REST; needs the Server Members intent). */
export async function* guildMembers(rest: REST, guildId: string): AsyncIterable<APIGuildMember[]> {
  let after = '0';
  for (;;) {
    const page = (await rest.get(Routes.guildMembers(guildId), {
      query: new URLSearchParams({ limit: String(MEMBERS_PAGE), after }),
    })) as APIGuildMember[];
    yield page;
    const last = page.at(-1)?.user?.id;
    if (page.length < MEMBERS_PAGE || !last) return;
    after = last;
  }
}

export function canViewChannel(
  facts: ChannelFacts,
  member: { userId: string; roleIds: readonly string[] },
): boolean {
  if (member.userId === facts.ownerId) return true;
  let p = rolePermissions(facts.guildId, facts.roles, member.roleIds);
  if (p & ADMINISTRATOR) return true;
  const apply = (o: { allow: bigint; deny: bigint } | undefined) => {
    if (o) p = (p & ~o.deny) | o.allow;
  };
  const bits = (o: Overwrite) => ({ allow: BigInt(o.allow), deny: BigInt(o.deny) });
  const everyone = facts.overwrites.find((o) => o.id === facts.guildId);
  apply(everyone ? bits(everyone) : undefined);
  let allow = 0n;
  let deny = 0n;
  for (const o of facts.overwrites) {
    if (o.type === 0 && o.id !== facts.guildId && member.roleIds.includes(o.id)) {
      allow |= BigInt(o.allow);
      deny |= BigInt(o.deny);
    }
  }
  apply({ allow, deny });
  const own = facts.overwrites.find((o) => o.type === 1 && o.id === member.userId);
  apply(own ? bits(own) : undefined);
  return (p & VIEW_CHANNEL) !== 0n;
}

/** What decides who views a channel; `withOwner`: the guild is read too, for its owner. */
async function channelFacts(
  rest: REST,
  guildId: string,
  channelId: string,
  withOwner: boolean,
): Promise<ChannelFacts> {
  const [guild, roles, channel] = await Promise.all([
    withOwner
      ? (rest.get(Routes.guild(guildId)) as Promise<{ owner_id: string }>)
      : { owner_id: '' },
    rest.get(Routes.guildRoles(guildId)) as Promise<APIRole[]>,
    rest.get(Routes.channel(channelId)) as Promise<{ permission_overwrites?: Overwrite[] }>,
  ]);
  const overwrites = channel.permission_overwrites ?? [];
  return { guildId, ownerId: guild.owner_id, roles, overwrites };
}

/**
 * Whether every member of the guild can view the channel: @everyone's permissions after the
 * channel's @everyone overwrite (a member with no role and no overwrite of their own).
 */
export async function everyoneCanView(
  rest: REST,
  guildId: string,
  channelId: string,
): Promise<boolean> {
  const facts = await channelFacts(rest, guildId, channelId, false);
  return canViewChannel(facts, { userId: '-', roleIds: [] });
}

/** The user ids of a guild channel's readers (REST; listing members needs the Server Members intent). */
export async function channelReaders(
  rest: REST,
  guildId: string,
  channelId: string,
): Promise<string[]> {
  const facts = await channelFacts(rest, guildId, channelId, true);
  const readers: string[] = [];
  for await (const page of guildMembers(rest, guildId))
    for (const m of page) {
      const userId = m.user?.id;
      if (userId && canViewChannel(facts, { userId, roleIds: m.roles })) readers.push(userId);
    }
  return readers;
}

const MANAGE_GUILD = 1n << 5n;

/** The guild's owner, or a member whose roles give Administrator or Manage Server (REST). */
export async function isGuildAdmin(rest: REST, guildId: string, userId: string): Promise<boolean> {
  const [guild, roles, member] = await Promise.all([
    rest.get(Routes.guild(guildId)) as Promise<{ owner_id: string }>,
    rest.get(Routes.guildRoles(guildId)) as Promise<APIRole[]>,
    rest.get(Routes.guildMember(guildId, userId)) as Promise<APIGuildMember>,
  ]);
  if (guild.owner_id === userId) return true;
  return (rolePermissions(guildId, roles, member.roles) & (ADMINISTRATOR | MANAGE_GUILD)) !== 0n;
}
