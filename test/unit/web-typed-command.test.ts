import assert from 'node:assert/strict';
import { test } from 'node:test';
import { webTypedCommand } from '../../src/core/web-typed-command.ts';

test('a typed /command starts what the commands table says, by any of its web names', () => {
  assert.deepEqual(webTypedCommand('/summarize'), { intent: 'summarize' });
  assert.deepEqual(webTypedCommand('  /Summarise  '), { intent: 'summarize' });
  assert.deepEqual(webTypedCommand('/erase'), { flow: 'erase', values: {} });
});

test("a flow's word after its command fills the flow's format", () => {
  assert.deepEqual(webTypedCommand('/feedback-export JSON'), {
    flow: 'export',
    values: { format: 'json' },
  });
});

test('words that only look like a command are a message; an unknown /word is said as typed', () => {
  assert.equal(webTypedCommand('hello /summarize'), undefined);
  assert.equal(webTypedCommand('/summarize the design doc'), undefined);
  assert.equal(webTypedCommand('/nope maybe'), undefined);
  assert.deepEqual(webTypedCommand(' /nope '), { unknown: '/nope' });
});
