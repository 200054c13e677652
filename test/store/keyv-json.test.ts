// The store's JSON for keyv writes exactly what keyv's own serializer writes and reads back what it
// reads, so records written before and after read the same.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultDeserialize, defaultSerialize } from '@keyv/serialize';
import { deserializeKeyv, serializeKeyv } from '../../src/store/keyv-json.ts';

const values: unknown[] = [
  { value: 'plain', expires: undefined },
  { value: ':starts with a colon', expires: 1 },
  { value: '::two colons' },
  { value: { ':key': ':value', nested: [':a', 'b', undefined, null, 3, -0, Number.NaN] } },
  { value: { bytes: Buffer.from('hello'), list: [Buffer.from([0, 255])] } },
  { value: { when: new Date(0), text: 'say "::" here', none: undefined, fn: () => 1 } },
  { value: [{ type: 'ai', data: { content: 'x'.repeat(500), tool_calls: [], id: 'run-1' } }] },
  { value: ':base64:aGk=' },
  { value: null },
  { value: true },
  { value: 12.5 },
];

describe('keyv JSON', () => {
  it('writes the text keyv writes', () => {
    for (const v of values) assert.equal(serializeKeyv(v), defaultSerialize(v));
  });

  it('reads back what keyv reads, from either writer', () => {
    for (const v of values) {
      const text = defaultSerialize(v);
      assert.deepEqual(deserializeKeyv(text), defaultDeserialize(text));
      assert.deepEqual(deserializeKeyv(serializeKeyv(v)), defaultDeserialize(text));
    }
  });
});
