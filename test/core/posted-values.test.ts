// Values a page posts for a form are checked before any flow reads them: only texts (of bounded
// length), numbers, booleans and lists of texts, in an object.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { postedValues } from '../../src/core/interactions/form-values.ts';

test('form values of every kind a form has pass as they are', () => {
  const v = { name: 'x', limit: 3, on: true, picks: ['a', 'b'] };
  assert.deepEqual(postedValues(v), v);
  assert.deepEqual(postedValues({}), {});
});

test('anything else is refused whole', () => {
  for (const bad of [null, 'text', ['a'], { a: { nested: 1 } }, { a: [1] }, { a: null }])
    assert.equal(postedValues(bad), undefined, JSON.stringify(bad));
  assert.equal(postedValues({ a: 'x'.repeat(20_001) }), undefined, 'a text longer than any field');
});
