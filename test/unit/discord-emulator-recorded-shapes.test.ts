// The Discord emulator's own dispatches against recorded ones (test/fixtures/discord-payloads/
// gateway): every field a recording carries, the emulator's dispatch of the same kind carries too,
// at the top level and inside the objects a bot reads (author, member, data, message). A field
// missing here is a difference between the emulator and Discord that the other tests cannot show.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import WebSocket from 'ws';
import { type DiscordEmulator, startDiscordEmulator } from '../emulators/discord/index.ts';
import { loadRecordedFrames } from '../support/discord-recorded.ts';

type Frame = { op: number; t?: string; d?: Record<string, unknown> };

/**
 * Fields a recording has only because of what happened to its message or server, not because
 * Discord always sends them: the emulator sends them too, in the same situations.
 */
const SITUATIONAL: ReadonlySet<string> = new Set([
  // A message with reactions; a crosspost; a message in the server's channel list position.
  'reactions',
  'mention_channels',
  'message_reference',
  'position',
  // A bot's user object; a member object as Discord sent it before `pending` replaced `is_pending`.
  'bot',
  'is_pending',
  'rules_channel_id',
  'public_updates_channel_id',
  'safety_alerts_channel_id',
]);

/** A raw gateway session: every dispatch it gets, in order. */
async function session(emu: DiscordEmulator): Promise<{ frames: Frame[]; close: () => void }> {
  const ws = new WebSocket(`${emu.gatewayUrl}/?v=10&encoding=json`);
  const frames: Frame[] = [];
  await new Promise<void>((resolve, reject) => {
    ws.on('error', reject);
    ws.on('message', (raw) => {
      const f = JSON.parse(raw.toString()) as Frame;
      if (f.op === 10) {
        // GUILDS, GUILD_MESSAGES, DIRECT_MESSAGES, MESSAGE_CONTENT.
        const intents = 1 | (1 << 9) | (1 << 12) | (1 << 15);
        const properties = { os: 'linux', browser: 'test', device: 'test' };
        ws.send(JSON.stringify({ op: 2, d: { token: emu.botToken, intents, properties } }));
      }
      if (f.op === 0) frames.push(f);
      if (f.t === 'GUILD_CREATE') resolve();
    });
  });
  return { frames, close: () => ws.close() };
}

function missing(recorded: unknown, emulated: unknown, at: string): string[] {
  if (!isObject(recorded) || !isObject(emulated)) return [];
  return Object.keys(recorded).flatMap((k) => {
    if (SITUATIONAL.has(k)) return [];
    if (!(k in emulated)) return [`${at}${k}`];
    const nested = ['author', 'member', 'user', 'data', 'message', 'thread_metadata'];
    return nested.includes(k) ? missing(recorded[k], emulated[k], `${at}${k}.`) : [];
  });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The kind a recording is: the event, and for an interaction its type and data's type. */
function kind(f: Frame): string {
  if (f.t !== 'INTERACTION_CREATE') return f.t ?? '';
  const data = (f.d?.data ?? {}) as Record<string, unknown>;
  return `${f.t}:${String(f.d?.type)}:${String(data.type ?? data.component_type ?? '')}`;
}

test('the emulator sends every field Discord’s recorded dispatches carry', async (t) => {
  const emu = await startDiscordEmulator();
  t.after(() => emu.close());
  const s = await session(emu);
  t.after(() => s.close());
  const guildId = emu.guilds[0]?.id ?? '';
  const channelId = emu.guilds[0]?.channels[0]?.id ?? '';
  const userId = emu.users[0]?.id ?? '';
  // One of each kind the recordings hold, done the emulator's way.
  const m = await emu.userMessage({ guildId, channelId, userId, content: 'Supa Hot' });
  await emu.editUserMessage(channelId, m.id, 'Supa Hot, edited');
  await emu.userThread({ channelId, userId, name: 'a thread', messageId: m.id });
  const gone = await emu.userMessage({ guildId, channelId, userId, content: 'to delete' });
  await emu.deleteUserMessage(channelId, gone.id);
  for (const command of [
    {
      name: 'cardsearch',
      description: 'Search',
      options: [{ type: 3, name: 'cardname', description: 'Card' }],
    },
    { name: 'context-menu-message-2', type: 3 },
    { name: 'context-menu-user-2', type: 2 },
  ]) {
    const res = await fetch(`${emu.apiUrl}/v10/applications/${emu.applicationId}/commands`, {
      method: 'POST',
      headers: { authorization: `Bot ${emu.botToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(command),
    });
    assert.ok(res.ok);
  }
  await emu.slashCommand({
    channelId,
    userId,
    name: 'cardsearch',
    options: [{ name: 'cardname', type: 3, value: 'The Gitrog Monster' }],
  });
  await emu.messageCommand({ channelId, userId, messageId: m.id, name: 'context-menu-message-2' });
  // The bot's message with a button and a select, as the components reference shows them.
  const posted = await fetch(`${emu.apiUrl}/v10/channels/${channelId}/messages`, {
    method: 'POST',
    headers: { authorization: `Bot ${emu.botToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      content: 'Pick one',
      components: [
        { type: 1, components: [{ type: 2, style: 1, label: 'Click me!', custom_id: 'x' }] },
        {
          type: 1,
          components: [{ type: 3, custom_id: 'y', options: [{ label: 'A', value: 'a' }] }],
        },
      ],
    }),
  });
  const withComponents = ((await posted.json()) as { id: string }).id;
  await emu.componentInteraction({ channelId, messageId: withComponents, userId, customId: 'x' });
  await emu.componentInteraction({
    channelId,
    messageId: withComponents,
    userId,
    customId: 'y',
    componentType: 3,
    values: ['a'],
  });
  await emu.waitFor(() => s.frames.some((f) => kind(f) === 'INTERACTION_CREATE:3:3'));

  const gaps: string[] = [];
  const compared = new Set<string>();
  for (const fx of loadRecordedFrames()) {
    const recorded = fx.frame as Frame;
    const mine = s.frames.find((f) => kind(f) === kind(recorded));
    if (mine === undefined) continue;
    compared.add(kind(recorded));
    for (const field of missing(recorded.d, mine.d, '')) gaps.push(`${fx.file}: ${field}`);
  }
  assert.deepEqual(gaps, [], 'fields Discord sends that the emulator does not');
  // Each kind a person can cause in the emulator was compared (READY-like and unasked events are not).
  for (const k of [
    'MESSAGE_CREATE',
    'MESSAGE_UPDATE',
    'MESSAGE_DELETE',
    'THREAD_CREATE',
    'GUILD_CREATE',
    'INTERACTION_CREATE:2:1',
    'INTERACTION_CREATE:2:3',
    'INTERACTION_CREATE:3:2',
    'INTERACTION_CREATE:3:3',
  ]) {
    assert.ok(compared.has(k), `compared ${k}`);
  }
});

// No recording of READY was found under a permissive licence (Discord's documentation prints its
// fields as a table, without an example): the emulator's READY is held to that table.
test('the emulator’s READY has the fields Discord documents for it', async (t) => {
  const emu = await startDiscordEmulator();
  t.after(() => emu.close());
  const s = await session(emu);
  t.after(() => s.close());
  const ready = s.frames.find((f) => f.t === 'READY')?.d ?? {};
  for (const field of ['v', 'user', 'guilds', 'session_id', 'resume_gateway_url', 'application']) {
    assert.ok(field in ready, `READY.${field}`);
  }
  const application = ready.application as Record<string, unknown>;
  assert.deepEqual(Object.keys(application).sort(), ['flags', 'id']);
  const guilds = ready.guilds as Record<string, unknown>[];
  assert.ok(
    guilds.every((g) => g.unavailable === true),
    'guilds start out unavailable',
  );
});
