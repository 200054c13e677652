// RESUME of a session another process held, against the Discord emulator's gateway: the events
// dispatched since the given sequence number come again, in order, then RESUMED; a session past
// its resume window, or further behind than the replay buffer, gets INVALID_SESSION.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type GatewayPacket, resumeSession } from '../../adapters/discord/gateway-replay.ts';
import type { GatewaySessionInfo } from '../../src/model/gateway-session.ts';
import { type DiscordEmulator, startDiscordEmulator } from '../emulators/discord/index.ts';

const GUILDS_AND_MESSAGES = (1 << 0) | (1 << 9) | (1 << 15);

/** A session opened with IDENTIFY and left without a clean close, as a killed gateway leaves it. */
async function abandonedSession(emu: DiscordEmulator): Promise<GatewaySessionInfo> {
  const ws = new WebSocket(`${emu.gatewayUrl}/?v=10&encoding=json`);
  let seq = 0;
  const ready = new Promise<{ session_id: string; resume_gateway_url: string }>((resolve) => {
    ws.addEventListener('message', (ev) => {
      const p = JSON.parse(String(ev.data)) as { op: number; t?: string; s?: number; d: never };
      if (p.op === 10)
        ws.send(
          JSON.stringify({ op: 2, d: { token: emu.botToken, intents: GUILDS_AND_MESSAGES } }),
        );
      if (typeof p.s === 'number') seq = p.s;
      if (p.t === 'READY') resolve(p.d);
    });
  });
  const d = await ready;
  await emu.waitFor(() => emu.gatewaySessions().connected === 1 && seq > 1);
  ws.close(4000);
  await emu.waitFor(() => emu.gatewaySessions().connected === 0);
  return {
    sessionId: d.session_id,
    resumeURL: d.resume_gateway_url,
    sequence: seq,
    shardId: 0,
    shardCount: 1,
    savedAt: Date.now(),
  };
}

async function say(emu: DiscordEmulator, n: number): Promise<string[]> {
  const guild = emu.guilds[0];
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const m = await emu.userMessage({
      guildId: guild?.id ?? '',
      channelId: guild?.channels[0]?.id ?? '',
      userId: emu.users[1]?.id ?? '',
      content: `message ${i}`,
    });
    ids.push(m.id);
  }
  return ids;
}

test('a resumed session replays what was sent since its sequence number, then RESUMED', async () => {
  const emu = await startDiscordEmulator();
  try {
    const info = await abandonedSession(emu);
    const sent = await say(emu, 3);
    const got: GatewayPacket[] = [];
    const replay = resumeSession({
      info,
      token: emu.botToken,
      timeoutMs: 10_000,
      onDispatch: (p) => got.push(p),
    });
    assert.deepEqual(await replay.outcome, { status: 'resumed', replayed: 3 });
    replay.close();
    assert.deepEqual(
      got.map((p) => [p.t, (p.d as { id: string }).id]),
      sent.map((id) => ['MESSAGE_CREATE', id]),
    );
    assert.deepEqual(
      got.map((p) => p.s),
      [1, 2, 3].map((k) => info.sequence + k),
    );
  } finally {
    await emu.close();
  }
});

test('past the resume window, or behind the replay buffer: INVALID_SESSION', async () => {
  const emu = await startDiscordEmulator({ replayLimit: 2 });
  try {
    const behind = await abandonedSession(emu);
    await say(emu, 3);
    const tooFar = resumeSession({
      info: behind,
      token: emu.botToken,
      timeoutMs: 10_000,
      onDispatch: () => undefined,
    });
    assert.deepEqual(await tooFar.outcome, { status: 'invalid' });
    const expired = await abandonedSession(emu);
    assert.equal(emu.expireGatewaySessions(), 1);
    const late = resumeSession({
      info: expired,
      token: emu.botToken,
      timeoutMs: 10_000,
      onDispatch: () => undefined,
    });
    assert.deepEqual(await late.outcome, { status: 'invalid' });
    assert.equal(emu.gatewaySessions().invalidated, 2);
  } finally {
    await emu.close();
  }
});
