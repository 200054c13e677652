// The commands table's message commands ("Ask threadmind about this", "Share file with server"):
// each platform's entry point is derived from the table, and on the web chat a message's action is
// not a typed command.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { actionOf } from '../../adapters/web/web-interactions.ts';
import {
  command,
  messageCommands,
  slackShortcutId,
  webCommand,
  webCommandList,
  webCommands,
  webMessageCommand,
} from '../../src/core/commands.ts';

test('every message command is a Slack message shortcut named from the table', () => {
  assert.deepEqual(messageCommands().map(slackShortcutId).sort(), [
    'threadmind_ask_about',
    'threadmind_share_file',
  ]);
});

test('ask-about is a flow, offered on the web chat as an action under a message, not as /ask-about', () => {
  const spec = command('ask-about');
  assert.deepEqual(spec.starts, { flow: 'ask-about' });
  assert.equal(webMessageCommand('ask-about'), spec);
  assert.equal(webCommand('ask-about'), undefined);
  assert.doesNotMatch(webCommandList(), /ask/i);
  const view = webCommands().find((c) => c.onMessage === 'ask-about');
  assert.equal(view?.name, 'Ask about this');
  assert.equal(view?.button, false);
});

test('the web page posts a message action as {messageId, command}; a press still needs its reference', () => {
  assert.deepEqual(actionOf({ messageId: 'm1', command: 'ask-about' }), {
    messageId: 'm1',
    ref: '',
    command: 'ask-about',
    values: {},
  });
  assert.equal(actionOf({ messageId: 'm1' }), undefined);
  assert.equal(actionOf({ messageId: 'm1', command: 7 }), undefined);
  assert.equal(actionOf({ messageId: 'm1', ref: 't1.x', values: { a: 'b' } })?.ref, 't1.x');
});
