// What the catch-all listeners leave to the flows: every shortcut and command the manifest offers,
// the flows' `tm:` buttons and `tm` modals; everything else (an old vote button, another app's
// ids, options requests) is theirs to acknowledge.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parse } from 'yaml';
import { isKnown, KNOWN } from '../../adapters/slack/slack-unknown.ts';

const manifest = parse(
  readFileSync(new URL('../../adapters/slack/manifest.yaml', import.meta.url), 'utf8'),
) as {
  features: {
    shortcuts: { callback_id: string; type: string }[];
    slash_commands: { command: string }[];
  };
};

test("every shortcut and slash command the manifest offers is a flow's", () => {
  for (const s of manifest.features.shortcuts) {
    const type = s.type === 'message' ? 'message_action' : 'shortcut';
    assert.ok(isKnown(KNOWN, { type, callback_id: s.callback_id }), s.callback_id);
  }
  for (const c of manifest.features.slash_commands) {
    assert.ok(isKnown(KNOWN, { command: c.command }), c.command);
  }
});

test("the flows' buttons and modals are theirs; old votes and other ids are not", () => {
  const press = (action_id: string) => ({ type: 'block_actions', actions: [{ action_id }] });
  assert.ok(isKnown(KNOWN, press('tm:vote')));
  assert.ok(isKnown(KNOWN, { type: 'view_submission', view: { callback_id: 'tm' } }));
  assert.ok(isKnown(KNOWN, { type: 'view_closed', view: { callback_id: 'tm' } }));
  assert.ok(!isKnown(KNOWN, press('threadmind_feedback')));
  assert.ok(!isKnown(KNOWN, press('a')));
  assert.ok(!isKnown(KNOWN, { type: 'view_submission', view: { callback_id: 'view-id' } }));
  assert.ok(!isKnown(KNOWN, { type: 'block_suggestion' }));
  assert.ok(!isKnown(KNOWN, { type: 'shortcut', callback_id: 'tm' }));
  assert.ok(!isKnown(KNOWN, { command: '/hello-world' }));
});
