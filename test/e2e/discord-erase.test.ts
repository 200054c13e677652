// `/erase-server` end to end through unmodified discord.js and the emulator: two servers each with a
// conversation, a file, channel settings and a vote; a member without Manage Server is refused
// privately, Cancel erases nothing, and Erase empties server A and leaves server B as it was.
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, test } from 'node:test';
import type { DiscordMessage } from '../emulators/discord/index.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { commitPending } from '../support/sqlite-committed.ts';

const MANAGE_CHANNELS = String(1 << 4);
const MANAGE_GUILD = String(1 << 5);

describe('erasing a Discord server', () => {
  let h: Harness;
  let d: NonNullable<Harness['discord']>;
  let alice: string;
  let bob: string;
  type Server = { id: string; channel: string; word: string };
  let A: Server;
  let B: Server;

  const buttons = (m: DiscordMessage | undefined) =>
    (m?.components ?? []).flatMap(
      (row) => (row as { components?: { custom_id?: string; label?: string }[] }).components ?? [],
    );
  const customIds = (m: DiscordMessage | undefined) => buttons(m).map((c) => c.custom_id ?? '');
  /** The custom_id of the button with this label. */
  const buttonId = (m: DiscordMessage, label: string) =>
    buttons(m).find((c) => c.label === label)?.custom_id ?? '';
  /** The interaction's message once it says something (a deferral shows nothing yet). */
  const answered = (id: string, needle?: RegExp) =>
    d.waitFor(() => {
      const m = d.interactions().find((i) => i.id === id)?.original;
      return m?.content && (needle === undefined || needle.test(m.content)) ? m : undefined;
    });

  /** The confirmation message once a button's answer has edited it to say `needle`. */
  const edited = (s: Server, messageId: string, needle: RegExp) =>
    d.waitFor(() =>
      d.messages(s.channel).find((m) => m.id === messageId && needle.test(m.content)),
    );

  function keysOf(guild: string): string[] {
    commitPending(`${h.dataDir}/threadmind.db`);
    const db = new DatabaseSync(`${h.dataDir}/threadmind.db`, { readOnly: true });
    try {
      const rows = db
        .prepare(
          'SELECT key FROM kv WHERE instr(key, ?) > 0 UNION ALL SELECT key FROM claims WHERE instr(key, ?) > 0',
        )
        .all(guild, guild) as { key: string }[];
      return rows.map((r) => r.key).sort();
    } finally {
      db.close();
    }
  }

  async function command(
    s: Server,
    userId: string,
    name: string,
    perms: string,
    options?: unknown[],
  ) {
    const { id } = await d.slashCommand({
      guildId: s.id,
      channelId: s.channel,
      userId,
      name,
      memberPermissions: perms,
      ...(options ? { options } : {}),
    } as Parameters<typeof d.slashCommand>[0]);
    return id;
  }

  async function fill(s: Server): Promise<void> {
    await d.userMessage({
      guildId: s.id,
      channelId: s.channel,
      userId: alice,
      content: 'the notes',
      attachments: [{ filename: 'notes.txt', bytes: Buffer.from(`The code word is ${s.word}.\n`) }],
    });
    await command(s, alice, 'ask', '0', [
      { name: 'question', type: 3, value: `what is new in ${s.id}?` },
    ]);
    const thread = await d.waitFor(() =>
      d.threads().find((t) => t.name === `what is new in ${s.id}?`),
    );
    const answer = await d.waitFor(() =>
      d
        .messages(thread.id)
        .findLast(
          (m) =>
            m.author.id === d.botUserId &&
            customIds(m).some((c) => c.startsWith('t1.feedback.up.')),
        ),
    );
    const vote = await d.componentInteraction({
      channelId: thread.id,
      messageId: answer.id,
      userId: bob,
      customId: customIds(answer).find((c) => c.startsWith('t1.feedback.up.')) ?? '',
    });
    await answered(vote.id, /👍/);
    const set = await command(s, alice, 'settings', MANAGE_CHANNELS, [
      {
        name: 'set',
        type: 1,
        options: [{ name: 'instructions', type: 3, value: `Speak like a pirate in ${s.id}` }],
      },
    ]);
    await answered(set, /instructions/);
  }

  async function settingsText(s: Server): Promise<string> {
    const id = await command(s, alice, 'settings', '0', [{ name: 'show', type: 1 }]);
    return (await answered(id)).content;
  }

  async function exportText(s: Server): Promise<string> {
    const id = await command(s, alice, 'feedback-export', MANAGE_GUILD);
    return (await answered(id)).content;
  }

  async function assertIntact(s: Server): Promise<void> {
    assert.match(await settingsText(s), new RegExp(`pirate in ${s.id}`));
    assert.match(await exportText(s), /1 vote from this server/);
    const keys = keysOf(s.id);
    for (const kind of ['history:', 'channel-settings:', 'att:channel:', ':feedback:'])
      assert.ok(
        keys.some((k) => k.includes(kind)),
        `${kind} for ${s.id}: ${keys.join(' ')}`,
      );
  }

  before(async () => {
    h = await startHarness({ discord: true });
    d = h.discord as NonNullable<Harness['discord']>;
    [alice, bob] = d.users.map((u) => u.id) as [string, string];
    const [g1, g2] = d.guilds as [(typeof d.guilds)[number], (typeof d.guilds)[number]];
    A = { id: g1.id, channel: g1.channels[0]?.id ?? '', word: 'PELICAN' };
    B = { id: g2.id, channel: g2.channels[0]?.id ?? '', word: 'FLAMINGO' };
    h.llm.setResponder(() => ({ content: 'Noted.' }));
    await fill(A);
    await fill(B);
  });
  after(() => h.close());

  test('both servers hold their data', async () => {
    await assertIntact(A);
    await assertIntact(B);
  });

  test('a member without Manage Server is refused privately, with no buttons', async () => {
    const id = await command(A, bob, 'erase-server', '0');
    const refusal = await answered(id);
    assert.match(refusal.content, /Only members with the Manage Server permission/);
    assert.equal(d.interactions().find((i) => i.id === id)?.ephemeral, true);
    assert.deepEqual(customIds(refusal), []);
    await assertIntact(A);
  });

  test('Cancel erases nothing', async () => {
    const keys = keysOf(A.id);
    const id = await command(A, alice, 'erase-server', MANAGE_GUILD);
    const ask = await answered(id, /cannot be undone/);
    const cancel = buttonId(ask, 'Cancel');
    const click = await d.componentInteraction({
      channelId: A.channel,
      messageId: ask.id,
      userId: alice,
      customId: cancel,
      memberPermissions: MANAGE_GUILD,
    });
    // The cancel has been handled once the confirmation says so.
    assert.ok(click.id);
    const after = await edited(A, ask.id, /Nothing was erased/);
    assert.deepEqual(customIds(after), [], 'the buttons are gone');
    // Only the claim that the confirmation was answered is new (it expires with it).
    assert.deepEqual(
      keysOf(A.id).filter((k) => !k.includes(':flow-taken:')),
      keys,
    );
    await assertIntact(A);
  });

  test('Erase empties server A and leaves server B as it was', async () => {
    const bKeys = keysOf(B.id);
    const id = await command(A, alice, 'erase-server', MANAGE_GUILD);
    const ask = await answered(id, /cannot be undone/);
    const click = await d.componentInteraction({
      channelId: A.channel,
      messageId: ask.id,
      userId: alice,
      customId: buttonId(ask, 'Erase'),
      memberPermissions: MANAGE_GUILD,
    });
    // Erase opens a modal in which the admin types the word.
    await d.waitFor(() => d.interactions().find((i) => i.id === click.id)?.modal);
    await d.modalSubmit({ interactionId: click.id, values: { word: 'ERASE' } });
    const done = await edited(A, ask.id, /Erased what threadmind stored for this server/);
    assert.deepEqual(customIds(done), []);
    const left = keysOf(A.id).map((k) => k.replace(/^tm:/, ''));
    // Delivery claims (ids only) expire by themselves; the marker in a day.
    assert.deepEqual(
      left.filter((k) => !k.startsWith('seen:')),
      [`discord:${A.id}:erased-at`],
    );
    assert.deepEqual(keysOf(B.id), bKeys, 'server B untouched');
    assert.ok(!(await settingsText(A)).includes('pirate'));
    assert.match(await exportText(A), /No feedback has been given in this server yet/);
    await assertIntact(B);
  });
});
