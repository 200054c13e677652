// Approvals on Discord, through discord.js and the emulator: the card's buttons under the bot's
// message in the thread; another member pressing is refused and nothing runs; the asker's Approve
// once runs exactly the approved call when the turn resumes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CoreWatch } from '../contract/flow-driver.ts';
import type { DiscordMessage } from '../emulators/discord/index.ts';
import { type ApprovalHarness, startApprovalHarness } from '../support/approval-harness.ts';
import type { Harness } from '../support/harness.ts';
import type { HttpTestServer } from '../support/mcp-test-server.ts';

type Row = { components?: { custom_id?: string; label?: string }[] };
const DELETE = { name: 'test__delete_everything', arguments: { project: 'DSC' } };
const buttonsOf = (m: DiscordMessage | undefined) =>
  ((m?.components ?? []) as Row[])
    .flatMap((r) => r.components ?? [])
    .filter((c) => c.custom_id?.startsWith('t1.approval.'));

describe('Discord: team tools wait for approval in the thread', () => {
  let rig: ApprovalHarness;
  let h: Harness;
  let server: HttpTestServer;
  const watch = new CoreWatch();

  before(async () => {
    // The guild's first channel, known before the harness starts only through the emulator's seed.
    rig = await startApprovalHarness(watch, (url) => ({
      discord: true,
      overrides: {
        mcp: { servers: [{ name: 'test', url }] },
        channels: { defaults: { mcpServers: 'test' } },
      },
    }));
    ({ h, server } = rig);
    await h.discord?.waitFor(() => h.discord?.gatewaySessions().connected === 1, 15_000);
  });
  after(async () => {
    await rig?.close();
  });

  test('another member is refused; the asker approves once and the call runs on resume', async () => {
    const d = h.discord;
    assert.ok(d);
    const guild = d.guilds[0];
    const [alice, bob] = d.users;
    assert.ok(guild?.channels[0] && alice && bob);
    const thread = await d.userThread({
      channelId: guild.channels[0].id,
      userId: bob.id,
      name: 'ops',
    });
    h.llm.enqueue({ toolCalls: [DELETE] }, { content: 'It waits for your approval.' });
    const m = await d.userMessage({
      guildId: guild.id,
      channelId: thread.id,
      userId: bob.id,
      content: 'clean up DSC',
      mentionsBot: true,
      attachments: [],
    });
    await watch.handled(m.id);
    const card = await d.waitFor(() =>
      d.messages(thread.id).find((x) => buttonsOf(x).length === 3),
    );
    assert.deepEqual(
      buttonsOf(card).map((b) => b.label),
      ['Approve once', 'Always in this channel', 'Deny'],
    );
    assert.match(JSON.stringify(card), /delete_everything/);
    const press = async (userId: string) => {
      const since = watch.interactions;
      await d.componentInteraction({
        channelId: thread.id,
        messageId: card.id,
        userId,
        customId: buttonsOf(card)[0]?.custom_id ?? '',
      });
      return watch.interacted(since, userId);
    };
    assert.equal((await press(alice.id)).outcome, 'refused');
    assert.deepEqual(server.state.deletions, []);
    h.llm.enqueue({ toolCalls: [DELETE] }, { content: 'Done: DSC is clean.' });
    assert.equal((await press(bob.id)).outcome, 'done');
    await d.waitFor(() =>
      d.messages(thread.id).find((x) => x.content.includes('Done: DSC is clean.')),
    );
    assert.deepEqual(server.state.deletions, [{ project: 'DSC' }]);
  });
});
