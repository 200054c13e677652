// Per-channel settings: config/ defaults and overrides, chat changes that win and say so, refusals
// and invalid values recorded in the audit trail.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { loadConfig } from '../../src/config/load-config.ts';
import { ChannelSettingsService } from '../../src/core/channel-settings.ts';
import { messages } from '../../src/core/messages.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';

const store = new SqliteStore(':memory:');
after(() => store.close());

const defaults = loadConfig({ env: {} }).channels.defaults;
const place = { platform: 'slack' as const, projectId: 'T1', channelId: 'C9' };

function service() {
  return new ChannelSettingsService({
    store,
    defaults,
    overrides: { 'slack:T1:C9': { replyMode: 'all', tools: { knowledge: false } } },
    models: async () => ['qwen3-8b', 'llama-3.1-70b'],
  });
}

describe('channel settings', () => {
  test('config/ overrides the defaults; a chat change wins and says so', async () => {
    const s = service();
    const before = await s.effective(place);
    assert.equal(before.settings.replyMode, 'all');
    assert.equal(before.settings.tools.knowledge, false);
    assert.equal(before.settings.tools.files, true, 'unnamed tools keep the default');
    assert.equal(before.source.replyMode, 'config');
    assert.equal(before.source.instructions, 'default');

    const r = await s.change(
      place,
      { id: 'UADMIN', mayChange: true },
      { replyMode: 'mention', instructions: 'Answer as a pirate.', model: 'llama-3.1-70b' },
    );
    assert.equal(r.ok, true);
    const now = await s.effective(place);
    assert.equal(now.settings.replyMode, 'mention');
    assert.equal(now.settings.model, 'llama-3.1-70b');
    assert.equal(now.source.replyMode, 'chat');
    assert.deepEqual(now.chatOverridesConfig, ['replyMode']);
    assert.equal(now.changedBy?.id, 'UADMIN');
    assert.match(
      messages.settings(now, await s.audit(place)),
      /wins over config\/ for: reply mode/,
    );
  });

  test('a refused or invalid change stores nothing and is in the audit trail', async () => {
    const s = service();
    const other = { ...place, channelId: 'C10' };
    const refused = await s.change(other, { id: 'UGUEST', mayChange: false }, { replyMode: 'all' });
    assert.deepEqual(refused, { ok: false, reason: 'not allowed' });
    const badModel = await s.change(other, { id: 'UADMIN', mayChange: true }, { model: 'gpt-9' });
    assert.deepEqual(badModel.ok ? undefined : badModel, {
      ok: false,
      reason: 'invalid',
      problems: {
        model: { kind: 'notServed', model: 'gpt-9', served: ['qwen3-8b', 'llama-3.1-70b'] },
      },
    });
    const tooLong = await s.change(
      other,
      { id: 'UADMIN', mayChange: true },
      { instructions: 'x'.repeat(5000) },
    );
    assert.deepEqual(tooLong.ok ? undefined : tooLong, {
      ok: false,
      reason: 'invalid',
      problems: { instructions: { kind: 'tooLong', max: 1500 } },
    });
    const outOfRange = await s.validate({ channelContext: 99, replyMode: 'loud' as 'all' });
    assert.deepEqual(outOfRange, {
      channelContext: { kind: 'range', min: 0, max: 50 },
      replyMode: { kind: 'choice' },
    });
    assert.equal((await s.effective(other)).settings.replyMode, defaults.replyMode);
    const audit = await s.audit(other);
    assert.deepEqual(
      audit.map((a) => [a.by, a.allowed]),
      [
        ['UGUEST', false],
        ['UADMIN', false],
        ['UADMIN', false],
      ],
    );
    assert.match(
      messages.settings(await s.effective(other), audit),
      /UGUEST: reply mode → all — refused \(not allowed\)/,
    );
  });
});
