// The approval contract's driver on Slack: people post and press through the Slack emulator, the
// bot answers through Bolt, the MCP server is real. The approver group is a Slack user group named
// in `mcp.approvers`. A press on a card whose buttons are gone replays an earlier press of the
// same person with this card's reference (what a stale client sends). With `split`, an ingress
// takes Slack's requests and a worker (replaceable) runs the turns, on a Redis of its own.
import type { RunningApp } from '../../src/compose/app.ts';
import type { SlackMessage } from '../emulators/slack/index.ts';
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
import { CoreWatch } from './flow-driver.ts';
import { filledIn } from './slack-flow-driver.ts';

const TEAM = 'T0EMU00001';
const GROUP = 'S0APPROVE1';
const ADMIN = 'U0ADMINAP1';
const PEOPLE: Record<Presser, string> = {
  asker: 'U0ASKERAP1',
  other: 'U0OTHERAP1',
  groupMember: 'U0GROUPAP1',
};
const CHANNELS = { a: 'CAPPROVEA1', b: 'CAPPROVEB1' } as const;
const INDEX: Record<Decision, number> = { once: 0, always: 1, deny: 2 };

interface SlackCall extends WaitingCall {
  channel: string;
  thread: string;
  ts: string;
  refs: string[];
}

type El = { action_id?: string; value?: string; text?: { text?: string } };
const elementsOf = (m: SlackMessage | undefined): El[] =>
  ((m?.blocks ?? []) as { elements?: El[] }[])
    .flatMap((b) => b.elements ?? [])
    .filter((e) => e.action_id?.startsWith('tm:'));

export const makeSlackApprovalDriver: MakeApprovalDriver = async (opts = {}) => {
  const redis = opts.split ? await startPrivateRedis() : undefined;
  const watch = new CoreWatch();
  const rig = await startApprovalHarness(watch, (url) => ({
    ...(redis ? { env: { THREADMIND_ROLE: 'ingress', STORE_URL: redis.url } } : {}),
    overrides: contractOverrides({
      ...(redis ? { scale: { queue: { name: `approvals-${process.pid}`, orderPollMs: 20 } } } : {}),
      mcp: {
        servers: [{ name: 'test', url }],
        approvalTtlSeconds: 60,
        approvers: [`slack:${TEAM}:${GROUP}`],
      },
    }),
  }));
  const { h } = rig;
  h.slack.setUser(ADMIN, { is_admin: true, profile: { display_name: 'Ada' } });
  // The approver group, synced as a workspace's user groups are.
  const groups = h.app.groups;
  if (!groups) throw new Error('slack approval driver: no platform groups with mcp.approvers');
  await groups.whenSynced('slack', TEAM);
  const changed = new Promise<void>((r) => groups.events.once('changed', () => r()));
  await h.slack.setUserGroup(GROUP, { handle: 'approvers', users: [PEOPLE.groupMember] });
  await changed;
  let worker: RunningApp | undefined;
  const replace = async () => {
    await worker?.stop();
    worker = await startWorkerBeside(h.config);
    watch.watch(worker.core);
  };
  if (redis) await replace();
  const pressed = new Map<string, Record<string, unknown>>();

  const botReplies = (c: SlackCall) =>
    h.slack.messages(c.channel, c.thread).filter((m) => m.bot_id !== undefined);
  const cardMessage = (c: SlackCall) => botReplies(c).find((m) => m.ts === c.ts);
  const ephemerals = (user: string) => h.slack.ephemeralMessages().filter((e) => e.user === user);

  /** The person's earlier press, aimed at this card's button (a stale client's request). */
  async function replayPress(c: SlackCall, i: number, user: string): Promise<void> {
    const earlier = pressed.get(user);
    if (!earlier) throw new Error('slack approval driver: no earlier press to replay');
    const body = structuredClone(earlier) as Record<string, Record<string, unknown>>;
    body.container = {
      ...body.container,
      message_ts: c.ts,
      channel_id: c.channel,
      thread_ts: c.thread,
    };
    body.channel = { ...body.channel, id: c.channel };
    const message = cardMessage(c);
    body.message = { ...(message ?? {}), thread_ts: c.thread } as Record<string, unknown>;
    const [action] = body.actions as unknown as Record<string, unknown>[];
    body.actions = [{ ...action, action_id: `tm:${i}`, value: c.refs[i] }] as never;
    await h.slack.replay('interactive', body);
  }

  const driver: ApprovalDriver = {
    name: 'slack',
    llm: h.llm,
    mcp: rig.server,

    async switchOn(where) {
      const channel = CHANNELS[where];
      const views = h.slack.openedViews().length;
      await h.slack.slashCommand({
        command: '/threadmind',
        text: 'settings',
        user: ADMIN,
        channel,
      });
      const view = await h.slack.waitFor(() => h.slack.openedViews().slice(views)[0]);
      const seen = ephemerals(ADMIN).length;
      await h.slack.submitView({
        viewId: view.id,
        user: ADMIN,
        values: filledIn(view.view, { mcp_servers: 'test' }),
      });
      return (await h.slack.waitFor(() => ephemerals(ADMIN)[seen])).text;
    },

    async ask(where, words) {
      const channel = CHANNELS[where];
      const { ts } = await h.slack.postUserMessage({
        channel,
        user: PEOPLE.asker,
        text: `<@${h.slack.botUserId}> ${words}`,
      });
      await watch.handled(ts);
      const c: SlackCall = { where, channel, thread: ts, ts: '', refs: [] };
      const card = botReplies(c).find((m) => elementsOf(m).length === 3);
      if (!card) return undefined;
      c.ts = card.ts;
      c.refs = elementsOf(card).map((e) => e.value ?? '');
      return c;
    },

    card(call): SeenCard {
      const m = cardMessage(call as SlackCall);
      return {
        text: `${m?.text ?? ''}\n${JSON.stringify(m?.blocks ?? [])}`,
        buttons: elementsOf(m).map((e) => e.text?.text ?? ''),
      };
    },

    async press(call, decision, as) {
      const c = call as SlackCall;
      const user = PEOPLE[as];
      const i = INDEX[decision];
      const seen = ephemerals(user).length;
      const since = watch.interactions;
      if (elementsOf(cardMessage(c)).length > 0) {
        const r = await h.slack.pressButton({
          channel: c.channel,
          ts: c.ts,
          user,
          actionId: `tm:${i}`,
        });
        pressed.set(user, r.payload);
      } else await replayPress(c, i, user);
      const e = await watch.interacted(since, user);
      const said =
        e.outcome === 'done' || e.outcome === 'cancelled'
          ? ''
          : (await h.slack.waitFor(() => ephemerals(user)[seen])).text;
      return { outcome: e.outcome, said };
    },

    waitInThread(call, words) {
      const c = call as SlackCall;
      return h.slack.waitFor(() => {
        const all = botReplies(c)
          .map((m) => m.markdown_text ?? m.text)
          .join('\n');
        return words.test(all) ? all : undefined;
      });
    },

    expire: () => h.app.approvals.sweep(Date.now() + 61_000),

    async restart() {
      await h.restart();
      watch.watch(h.app.core);
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
