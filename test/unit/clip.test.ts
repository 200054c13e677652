import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clip, clipAtWord } from '../../src/text/clip.ts';

test('a text within the limit is kept whole', () => {
  assert.equal(clip('short', 10), 'short');
  assert.equal(clipAtWord('short title', 20), 'short title');
});

test('a cut text ends in an ellipsis within the limit, never half an emoji', () => {
  assert.equal(clip('abcdefghij', 5), 'abcd…');
  assert.equal(clip('😀😀😀😀😀😀', 4), '😀😀😀…');
});

test('a title is cut at a word in its second half, else mid-word', () => {
  assert.equal(clipAtWord('how do I rotate the signing keys safely', 20), 'how do I rotate…');
  assert.equal(clipAtWord('supercalifragilisticexpialidocious', 10), 'supercali…');
});
