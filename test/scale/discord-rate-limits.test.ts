// Discord's REST rate limits shared through Redis: three clients (three workers' worth) posting to
// one channel at once stay inside the bucket together — no 429 — where the same three clients
// without the shared state run into Discord's limit.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { REST, Routes } from 'discord.js';
import { Redis } from 'ioredis';
import { rateLimitRoute, sharedMakeRequest } from '../../adapters/discord/discord-rest.ts';
import { RedisRateLimits } from '../../src/queue/shared-rate-limits.ts';
import { type DiscordEmulator, startDiscordEmulator } from '../emulators/discord/index.ts';
import { startPrivateRedis, type TestRedis } from '../support/redis-server.ts';

const CLIENTS = 3;
const POSTS_EACH = 6;

let redis: TestRedis;
let client: Redis;
let discord: DiscordEmulator;

before(async () => {
  redis = await startPrivateRedis();
  client = new Redis(redis.url);
  discord = await startDiscordEmulator({ rateLimit: { limit: 5, windowMs: 500 } });
});

after(async () => {
  client?.disconnect();
  await discord?.close();
  await redis?.stop();
});

async function burst(channelId: string, shared: boolean): Promise<{ ok: number; limited: number }> {
  const from = discord.calls.length;
  const rests = Array.from({ length: CLIENTS }, () =>
    new REST({
      api: discord.apiUrl,
      ...(shared
        ? { makeRequest: sharedMakeRequest(new RedisRateLimits(client, `rl-test-${process.pid}`)) }
        : {}),
    }).setToken(discord.botToken),
  );
  await Promise.all(
    rests.flatMap((rest, i) =>
      Array.from({ length: POSTS_EACH }, (_, k) =>
        rest.post(Routes.channelMessages(channelId), {
          body: { content: `client ${i} post ${k}` },
        }),
      ),
    ),
  );
  const calls = discord.calls.slice(from).filter((c) => c.route.endsWith('/messages'));
  return {
    ok: calls.filter((c) => c.status === 200).length,
    limited: calls.filter((c) => c.status === 429).length,
  };
}

test('rate-limit routes keep only the major parameters (and never an interaction token in clear)', () => {
  assert.equal(
    rateLimitRoute(
      'patch',
      'http://x/api/v10/channels/123456789012345678/messages/223456789012345678',
    ),
    'PATCH /channels/123456789012345678/messages/:id',
  );
  assert.equal(
    rateLimitRoute(
      'put',
      'http://x/api/v10/channels/123456789012345678/messages/223456789012345678/reactions/%E2%9C%85/@me',
    ),
    'PUT /channels/123456789012345678/messages/:id/reactions',
  );
});

test('three clients sharing the Redis buckets get no 429; without sharing they do', async () => {
  const [shared, alone] = [discord.guilds[0]?.channels[0]?.id, discord.guilds[0]?.channels[1]?.id];
  assert.ok(shared && alone);
  const together = await burst(shared, true);
  assert.deepEqual(together, { ok: CLIENTS * POSTS_EACH, limited: 0 });
  const apart = await burst(alone, false);
  assert.equal(apart.ok, CLIENTS * POSTS_EACH, 'discord.js retries until all are posted');
  assert.ok(apart.limited > 0, `without sharing the clients were limited ${apart.limited} times`);
});
