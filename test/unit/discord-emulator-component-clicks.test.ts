// A person can click only what a message shows: Discord sends a MESSAGE_COMPONENT interaction for
// a component on that message, naming it by custom_id and numeric id. The emulator's click refuses
// anything else, so a test cannot pass by clicking a button the bot never put there; a stale
// payload on purpose goes through replayInteraction.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type DiscordEmulator, startDiscordEmulator } from '../emulators/discord/index.ts';

async function postWithButton(emu: DiscordEmulator, channelId: string): Promise<string> {
  const res = await fetch(`${emu.apiUrl}/v10/channels/${channelId}/messages`, {
    method: 'POST',
    headers: { authorization: `Bot ${emu.botToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      content: 'Was this helpful?',
      components: [
        { type: 1, components: [{ type: 2, style: 1, label: 'Yes', custom_id: 'fb:up' }] },
        {
          type: 1,
          components: [{ type: 3, custom_id: 'pick', options: [{ label: 'A', value: 'a' }] }],
        },
      ],
    }),
  });
  assert.ok(res.ok);
  return ((await res.json()) as { id: string }).id;
}

test('a click reaches the bot only for a component the message shows', async (t) => {
  const emu = await startDiscordEmulator();
  t.after(() => emu.close());
  const channelId = emu.guilds[0]?.channels[0]?.id ?? '';
  const userId = emu.users[0]?.id ?? '';
  const messageId = await postWithButton(emu, channelId);

  const click = await emu.componentInteraction({ channelId, messageId, userId, customId: 'fb:up' });
  const sent = emu.interactions().find((i) => i.id === click.id);
  assert.equal(sent?.data?.custom_id, 'fb:up');
  assert.equal(typeof sent?.data?.id, 'number', 'names the component by its numeric id');

  await assert.rejects(
    emu.componentInteraction({ channelId, messageId, userId, customId: 'fb:down' }),
    /has no component with custom_id "fb:down"/,
  );
  await assert.rejects(
    emu.componentInteraction({ channelId, messageId, userId, customId: 'pick' }),
    /is of type 3, not 2/,
    'a select is not clicked as a button',
  );
  assert.equal(emu.interactions().length, 1, 'nothing was sent for the refused clicks');

  // A recorded or stale payload still reaches the bot through the raw path.
  const stale = await emu.replayInteraction({
    type: 3,
    data: { custom_id: 'fb:down', component_type: 2 },
    channelId,
    userId,
    messageId,
  });
  assert.ok(emu.interactions().some((i) => i.id === stale.id));
});
