// What a mention's words ask for: a request to share is a command, a question about sharing is a
// question for the model (a labelled question once started the share flow instead of an answer).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { intentOf } from '../../src/core/intents.ts';
import type { InboundMessage } from '../../src/model/incoming.ts';

function mention(text: string): InboundMessage {
  return { text, addressed: 'mention' } as unknown as InboundMessage;
}

test('asking to share what was posted is the share command', () => {
  for (const text of [
    'share this with the workspace',
    'Share this with everyone.',
    'please share the file with the whole team',
    'could you share these with the server?',
  ])
    assert.equal(intentOf(mention(text)), 'share', text);
});

test('a question that mentions sharing is a question', () => {
  for (const text of [
    'Can I share my login with my team?',
    'how do I share a doc with the team',
    'is it allowed to share this repo with everyone at the company? the terms say what',
  ])
    assert.equal(intentOf(mention(text)), 'ask', text);
});
