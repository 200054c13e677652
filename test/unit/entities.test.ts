import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeEntities, decodeEntity } from '../../src/text/entities.ts';

test('named references a model writes become their characters', () => {
  assert.equal(
    decodeEntities('a &amp; b &lt;c&gt; &quot;d&quot; &apos;e&apos;'),
    'a & b <c> "d" \'e\'',
  );
  assert.equal(decodeEntities('x&nbsp;y'), 'x\u00a0y');
});

test('decimal and hex references become their code points', () => {
  assert.equal(decodeEntities('&#65;&#x42;&#X1F600;'), 'AB😀');
});

test('an impossible code point is the replacement character', () => {
  assert.equal(decodeEntity('#0'), '\ufffd');
  assert.equal(decodeEntity('#x110000'), '\ufffd');
});

test('unknown names and bare ampersands stay as written', () => {
  assert.equal(decodeEntities('&copy; & &amp'), '&copy; & &amp');
});
