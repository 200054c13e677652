// The Slack manifest an operator pastes: within Slack's documented limits for the agent view, and
// naming the shortcuts and events the adapter actually handles.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parse } from 'yaml';
import { MAX_PROMPTS } from '../../adapters/slack/slack-agent-view.ts';
import { MESSAGE_SHORTCUTS } from '../../adapters/slack/slack-interactions.ts';

interface Manifest {
  features: {
    agent_view: {
      agent_description: string;
      suggested_prompts: { title: string; message: string }[];
    };
    shortcuts: { callback_id: string; type: string }[];
  };
  settings: { event_subscriptions: { bot_events: string[] } };
}

const manifest = parse(
  readFileSync(new URL('../../adapters/slack/manifest.yaml', import.meta.url), 'utf8'),
) as Manifest;

test('the agent view fits Slack’s limits: a description of at most 300 characters, at most 4 prompts', () => {
  const view = manifest.features.agent_view;
  assert.ok(view.agent_description.length > 0 && view.agent_description.length <= 300);
  assert.ok(view.suggested_prompts.length > 0 && view.suggested_prompts.length <= MAX_PROMPTS);
  for (const p of view.suggested_prompts) assert.ok(p.title && p.message);
});

test('the message shortcuts and agent events the adapter handles are in the manifest', () => {
  const ids = manifest.features.shortcuts
    .filter((s) => s.type === 'message')
    .map((s) => s.callback_id);
  // The commands table's message commands, one shortcut each (ask-about, share-file).
  assert.deepEqual(ids.sort(), [...MESSAGE_SHORTCUTS].sort());
  assert.deepEqual(ids.sort(), ['threadmind_ask_about', 'threadmind_share_file']);
  const events = manifest.settings.event_subscriptions.bot_events;
  for (const e of ['app_context_changed', 'app_uninstalled', 'tokens_revoked', 'app_mention'])
    assert.ok(events.includes(e), e);
});
