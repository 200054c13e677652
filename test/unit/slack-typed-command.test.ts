import assert from 'node:assert/strict';
import { test } from 'node:test';
import { messages } from '../../src/core/messages.ts';
import { slackTypedCommand } from '../../src/core/slack-typed-command.ts';

test('/threadmind words start what the commands table says, by any of their Slack names', () => {
  assert.deepEqual(slackTypedCommand(''), { flow: 'settings', values: {} });
  assert.deepEqual(slackTypedCommand('  Settings '), { flow: 'settings', values: {} });
  assert.deepEqual(slackTypedCommand('show'), { flow: 'settings-show', values: {} });
  assert.deepEqual(slackTypedCommand('erase-workspace'), { flow: 'erase', values: {} });
});

test("the word after a flow's name fills its format", () => {
  assert.deepEqual(slackTypedCommand('feedback export JSON'), {
    flow: 'export',
    values: { format: 'json' },
  });
});

test('words that name no command get the usage; feedback words the export’s own', () => {
  assert.deepEqual(slackTypedCommand('help me'), { usage: messages.slackCommandUsage });
  assert.deepEqual(slackTypedCommand('feedback'), { usage: messages.feedbackExportUsage });
  assert.deepEqual(slackTypedCommand('feedback export xml now'), {
    usage: messages.feedbackExportUsage,
  });
});
