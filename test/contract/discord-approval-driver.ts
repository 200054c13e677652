// The approval contract's driver on Discord: people post in threads and press through the Discord
// emulator, the bot answers through discord.js, the MCP server is real. The approver group is a
// role named in `mcp.approvers`. A press on a card whose buttons are gone sends the reference the
// card first carried (what a stale client sends). With `split`, a gateway takes Discord's events
// and interactions and a worker (replaceable) runs the turns, on a Redis of its own.

import type { RunningApp } from '../../src/compose/app.ts';
import type { DiscordMessage } from '../emulators/discord/index.ts';
import { startApprovalHarness } from '../support/approval-harness.ts';
import { startWorkerBeside } from '../support/harness.ts';
import { startPrivateRedis } from '../support/redis-server.ts';
import type {
  ApprovalDriver,
  Decision,
  MakeApprovalDriver,
  Presser,
  SeenCard,
  WaitingCall,
} from './approval-driver.ts';
import { contractOverrides } from './config.ts';
import { pressOrReplay } from './discord-press.ts';
import { CoreWatch } from './flow-driver.ts';

const MANAGE_CHANNELS = String((1n << 4n) | (1n << 10n) | (1n << 11n));
const INDEX: Record<Decision, number> = { once: 0, always: 1, deny: 2 };
const later = (id: string, than: string) => BigInt(id) > BigInt(than);

interface DiscordCall extends WaitingCall {
  thread: string;
  message: string;
  asked: string;
  refs: string[];
}

type Row = { components?: { custom_id?: string; label?: string }[] };
const buttonsOf = (m: DiscordMessage | undefined) =>
  ((m?.components ?? []) as Row[])
    .flatMap((r) => r.components ?? [])
    .filter((c) => c.custom_id?.startsWith('t1.approval.'));

export const makeDiscordApprovalDriver: MakeApprovalDriver = async (opts = {}) => {
  const redis = opts.split ? await startPrivateRedis() : undefined;
  const watch = new CoreWatch();
  const rig = await startApprovalHarness(watch, (url) => ({
    discord: true,
    ...(redis ? { env: { THREADMIND_ROLE: 'gateway', STORE_URL: redis.url } } : {}),
    overrides: contractOverrides({
      ...(redis
        ? { scale: { queue: { name: `dapprovals-${process.pid}`, orderPollMs: 20 } } }
        : {}),
      // The role's id exists once the emulator runs; it is added below, as an operator names it.
      mcp: { servers: [{ name: 'test', url }], approvalTtlSeconds: 60, approvers: ['discord:-:-'] },
    }),
  }));
  const { h } = rig;
  const d = h.discord;
  const guild = d?.guilds[0];
  const [alice, bob, mina] = d?.users ?? [];
  if (!d || !guild?.channels[0] || !guild.channels[1] || !alice || !bob || !mina)
    throw new Error('discord approval driver: unexpected seed');
  let worker: RunningApp | undefined;
  const replace = async () => {
    await worker?.stop();
    worker = await startWorkerBeside(h.config);
    watch.watch(worker.core);
  };
  if (redis) await replace();
  // The gateway connects once it holds the lease (split roles) or once logged in.
  await d.waitFor(() => d.gatewaySessions().connected === 1, 15_000);
  // Bob asks; Alice (the owner) is someone else; Mina holds the approvers role.
  const people: Record<Presser, string> = { asker: bob.id, other: alice.id, groupMember: mina.id };
  const channels = { a: guild.channels[0].id, b: guild.channels[1].id };
  const role = d.addRole(guild.id, 'tool-approvers', 0n);
  h.config.mcp.approvers.push(`discord:${guild.id}:${role}`);
  const groups = h.app.groups;
  if (!groups) throw new Error('discord approval driver: no platform groups with mcp.approvers');
  await groups.whenSynced('discord', guild.id);
  const changed = new Promise<void>((r) => groups.events.once('changed', () => r()));
  d.setMemberRoles(guild.id, mina.id, [role]);
  await changed;

  const botAfter = (c: DiscordCall) =>
    d.messages(c.thread).filter((m) => m.author.id === d.botUserId && later(m.id, c.asked));
  const cardOf = (c: DiscordCall) => d.messages(c.thread).find((m) => m.id === c.message);

  const driver: ApprovalDriver = {
    name: 'discord',
    llm: h.llm,
    mcp: rig.server,

    async switchOn(where) {
      const { id } = await d.slashCommand({
        guildId: guild.id,
        channelId: channels[where],
        userId: alice.id,
        name: 'settings',
        options: [
          { name: 'set', type: 1, options: [{ name: 'mcp_servers', type: 3, value: 'test' }] },
        ],
        memberPermissions: MANAGE_CHANNELS,
      });
      return d.waitFor(() => {
        const i = d.interactions().find((x) => x.id === id);
        return i?.original?.content || i?.followups.at(-1)?.content || undefined;
      });
    },

    async ask(where, words) {
      const thread = await d.userThread({
        channelId: channels[where],
        userId: bob.id,
        name: words,
      });
      const m = await d.userMessage({
        guildId: guild.id,
        channelId: thread.id,
        userId: bob.id,
        content: words,
        mentionsBot: true,
        attachments: [],
      });
      await watch.handled(m.id);
      const c: DiscordCall = { where, thread: thread.id, message: '', asked: m.id, refs: [] };
      const card = botAfter(c).find((x) => buttonsOf(x).length === 3);
      if (!card) return undefined;
      c.message = card.id;
      c.refs = buttonsOf(card).map((b) => b.custom_id ?? '');
      return c;
    },

    card(call): SeenCard {
      const m = cardOf(call as DiscordCall);
      return { text: m?.content ?? '', buttons: buttonsOf(m).map((b) => b.label ?? '') };
    },

    async press(call, decision, as) {
      const c = call as DiscordCall;
      const user = people[as];
      const since = watch.interactions;
      const click = await pressOrReplay(
        d,
        { channelId: c.thread, messageId: c.message, userId: user },
        c.refs[INDEX[decision]] ?? '',
      );
      const e = await watch.interacted(since, user);
      if (e.outcome === 'done' || e.outcome === 'cancelled')
        return { outcome: e.outcome, said: '' };
      const said = await d.waitFor(() => {
        const i = d.interactions().find((x) => x.id === click.id);
        const own = i?.followups.at(-1) ?? i?.original;
        return own?.content || undefined;
      });
      return { outcome: e.outcome, said };
    },

    waitInThread(call, words) {
      const c = call as DiscordCall;
      return d.waitFor(() => {
        const all = botAfter(c)
          .map((m) => m.content)
          .join('\n');
        return words.test(all) ? all : undefined;
      });
    },

    expire: () => h.app.approvals.sweep(Date.now() + 61_000),

    async restart() {
      await h.restart();
      watch.watch(h.app.core);
      await d.waitFor(() => d.gatewaySessions().connected >= 1);
    },

    ...(redis ? { replaceWorker: replace } : {}),

    async close() {
      await worker?.stop();
      await rig.close();
      await redis?.stop();
    },
  };
  return driver;
};
