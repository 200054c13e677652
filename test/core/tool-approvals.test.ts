// The expiry of an approval, on a real store: the card is edited to say so (its buttons go) and
// the turn is told, once, whichever replica sweeps; where the card cannot be edited (no id, or the
// edit fails) the thread is told in a message instead.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createStore } from '../../src/compose/create-store.ts';
import { ToolApprovals } from '../../src/core/tool-approvals.ts';
import { silentLogger } from '../../src/log/logger.ts';
import type { Place } from '../../src/model/interaction.ts';

const ref = { platform: 'web' as const, projectId: 'local', channelId: 'chat', sessionId: 's1' };
const place: Place = { ref, to: { ref, context: {} } };
const call = {
  server: 'test',
  tool: 'delete_everything',
  name: 'test__delete_everything',
  args: { project: 'OPS' },
  needsApproval: true,
};

async function rig(cardId: string | undefined, settleFails = false) {
  const store = await createStore('sqlite://:memory:');
  const a = new ToolApprovals({ store, ttlMs: 60_000, approvers: [], log: silentLogger() });
  const seen = { settled: [] as string[], said: [] as string[], resumed: [] as string[] };
  let n = 0;
  a.buttons = async () => [
    { label: 'Approve once', ref: `t1.approval.once.tag.key${n++}.exp.mac` },
  ];
  a.post = async () => ({ id: cardId });
  a.settle = async (_p, id, _d, words) => {
    if (settleFails) throw new Error('message gone');
    seen.settled.push(`${id}: ${words}`);
  };
  a.say = async (_p, words) => {
    seen.said.push(words);
  };
  a.resume = async (_p, _d, text) => {
    seen.resumed.push(text);
  };
  return { a, seen, store };
}

describe('an approval that expires', () => {
  test('its card says so in place (no buttons), the turn is told, and only once', async () => {
    const { a, seen, store } = await rig('m1');
    const gate = a.gate(place, 'U1', 'msg1', undefined);
    const d = await gate(call);
    assert.equal(d.run, false);
    assert.equal(await a.sweep(Date.now() + 1000), 0, 'not due yet');
    assert.equal(await a.sweep(Date.now() + 61_000), 1);
    assert.equal(seen.settled.length, 1);
    assert.match(
      seen.settled[0] ?? '',
      /^m1: ⌛ Nobody approved `test__delete_everything` in time/,
    );
    assert.deepEqual(seen.said, []);
    assert.match(seen.resumed[0] ?? '', /nobody approved it in time/);
    assert.equal(await a.sweep(Date.now() + 120_000), 0, 'told once');
    await store.close();
  });

  test('without the card’s id, or when the edit fails, the thread is told in a message', async () => {
    for (const [id, fails] of [
      [undefined, false],
      ['m2', true],
    ] as const) {
      const { a, seen, store } = await rig(id, fails);
      await a.gate(place, 'U1', 'msg1', undefined)(call);
      assert.equal(await a.sweep(Date.now() + 61_000), 1);
      assert.deepEqual(seen.settled, []);
      assert.match(seen.said[0] ?? '', /Nobody approved/);
      assert.equal(seen.resumed.length, 1);
      await store.close();
    }
  });
});
