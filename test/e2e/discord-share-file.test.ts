// "Share file with server", the Discord message command: the same core path as Slack's shortcut.
// On a message in a channel everyone can view, its attachment is shared at once and found from
// another channel; from a restricted channel an ephemeral confirmation's Share button shares it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Perm } from '../emulators/discord/permissions.ts';
import type { ScriptedReply } from '../emulators/openai/index.ts';
import { buildTextPdf } from '../fixtures/documents/index.ts';
import { type Harness, startHarness } from '../support/harness.ts';

type Req = { messages: { role: string; content: unknown }[] };
const COMMAND = 'Share file with server';

describe('Share file with server (Discord message command)', () => {
  let h: Harness;
  let d: NonNullable<Harness['discord']>;
  let guild: NonNullable<Harness['discord']>['guilds'][number];
  let alice: string;
  let bob: string;

  before(async () => {
    h = await startHarness({ discord: true });
    d = h.discord as NonNullable<Harness['discord']>;
    guild = d.guilds[0] as typeof guild;
    [alice, bob] = d.users.map((u) => u.id) as [string, string];
    h.llm.setResponder((req: Req): ScriptedReply => {
      const last = req.messages.at(-1);
      if (last?.role === 'tool') return { content: `TOOL RESULT: ${String(last.content)}` };
      return {
        toolCalls: [{ name: 'search_attachment', arguments: { query: 'thornbury budget' } }],
      };
    });
  });
  after(() => h.close());

  const botText = (channelId: string) =>
    d
      .messages(channelId)
      .filter((m) => m.author.id === d.botUserId)
      .map((m) => m.content)
      .join('\n');

  /** /ask in the server's first channel: what search_attachment found. */
  async function searchFromGeneral(question: string): Promise<string> {
    await d.slashCommand({
      guildId: guild.id,
      channelId: guild.channels[0]?.id ?? '',
      userId: alice,
      name: 'ask',
      options: [{ name: 'question', type: 3, value: question }],
    });
    const t = await d.waitFor(() => d.threads().find((x) => x.name === question));
    return d.waitFor(() => {
      const text = botText(t.id);
      return text.includes('TOOL RESULT') ? text : undefined;
    }, 15_000);
  }

  /** The ephemeral reply to an interaction once its content matches. */
  const reply = (id: string, text: RegExp) =>
    d.waitFor(() => {
      const original = d.interactions().find((i) => i.id === id)?.original;
      return original && text.test(original.content) ? original : undefined;
    }, 15_000);

  test('on a message in a channel everyone can view: shared, and found from another channel', async () => {
    const channel = guild.channels[1]?.id ?? '';
    const msg = await d.userMessage({
      guildId: guild.id,
      channelId: channel,
      userId: bob,
      content: 'numbers attached',
      attachments: [
        {
          filename: 'thornbury.pdf',
          bytes: await buildTextPdf(['The thornbury budget is 42 thousand.']),
        },
      ],
    });
    await h.handled(msg.id);
    const ask = await d.messageCommand({
      channelId: channel,
      messageId: msg.id,
      userId: bob,
      name: COMMAND,
    });
    const said = await reply(ask.id, /Shared thornbury\.pdf/);
    assert.match(said.content, /with the whole server/);
    assert.ok(d.interactions().find((i) => i.id === ask.id)?.ephemeral, 'only bob sees it');
    assert.match(
      await searchFromGeneral('thornbury budget?'),
      /thornbury\.pdf.*\(shared with the /,
    );
  });

  test('in a channel not everyone can view: shared only after the Share button', async () => {
    const channel = guild.channels[2]?.id ?? guild.channels[1]?.id ?? '';
    d.setPermissionOverwrites(channel, [
      { id: guild.id, type: 0, allow: '0', deny: String(Perm.ViewChannel) },
      { id: bob, type: 1, allow: String(Perm.ViewChannel), deny: '0' },
      { id: d.botUserId, type: 1, allow: String(Perm.ViewChannel), deny: '0' },
    ]);
    const msg = await d.userMessage({
      guildId: guild.id,
      channelId: channel,
      userId: bob,
      content: 'private numbers',
      attachments: [
        { filename: 'hidden-thornbury.txt', bytes: Buffer.from('The thornbury budget is 7.\n') },
      ],
    });
    await h.handled(msg.id);
    const ask = await d.messageCommand({
      channelId: channel,
      messageId: msg.id,
      userId: bob,
      name: COMMAND,
    });
    const confirm = await reply(ask.id, /hidden-thornbury\.txt is in a private channel/);
    assert.doesNotMatch(await searchFromGeneral('thornbury before?'), /hidden-thornbury/);
    const rows = (confirm.components ?? []) as {
      components?: { label?: string; custom_id?: string }[];
    }[];
    const buttons = rows.flatMap((r) => r.components ?? []);
    assert.deepEqual(
      buttons.map((b) => b.label),
      ['Share', 'Cancel'],
    );
    const share = buttons.find((b) => b.label === 'Share')?.custom_id ?? '';
    const click = await d.componentInteraction({
      channelId: channel,
      messageId: confirm.id,
      userId: bob,
      customId: share,
    });
    await d.waitFor(() =>
      d.messages(channel).find((m) => m.id === confirm.id && /Shared hidden/.test(m.content)),
    );
    assert.ok(d.interactions().find((i) => i.id === click.id)?.acknowledgedAt);
    assert.match(await searchFromGeneral('thornbury after?'), /hidden-thornbury\.txt/);
  });
});
