// A queued message is plain JSON: what cannot travel (file downloads) is rebuilt on the worker,
// the files of messages handed over with it (a Discord user install's "ask about" target) too.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FileRef, InboundMessage, QueuedFile } from '../../src/model/incoming.ts';
import type { PlatformPort } from '../../src/model/platform-port.ts';
import { fromQueued, toQueued } from '../../src/queue/wire.ts';
import { MockPort, REF, TO } from '../support/mock-port.ts';

const file = (id: string): FileRef => ({
  id,
  name: `${id}.txt`,
  size: 3,
  url: `https://cdn.example/${id}`,
  download: async () => new Uint8Array([1, 2, 3]),
});

test('handed-over messages travel as data and get their files back on the worker', () => {
  const m: InboundMessage = {
    ref: REF,
    to: TO,
    principal: 'U1',
    text: 'what does it say?',
    messageId: '9.0',
    receivedAt: 0,
    traceId: 't',
    addressed: 'command',
    dedupe: ['k'],
    delivered: [
      {
        id: '4.0',
        authorId: 'U2',
        authorName: 'Mina',
        isBot: false,
        fromSelf: false,
        text: 'the message asked about',
        at: 1,
        files: [file('f1')],
      },
    ],
  };
  const wire = JSON.parse(JSON.stringify(toQueued(m, undefined)));
  assert.deepEqual(wire.delivered[0].files, [
    { id: 'f1', name: 'f1.txt', size: 3, url: 'https://cdn.example/f1' },
  ]);
  const rebuiltFrom: QueuedFile[][] = [];
  const port = new MockPort({}) as unknown as PlatformPort;
  port.rehydrate = (q) => {
    rebuiltFrom.push(q.files ?? []);
    return {
      files: (q.files ?? []).map((f) => ({ ...f, download: async () => new Uint8Array() })),
    };
  };
  const back = fromQueued(wire, port, 'job-1', 1);
  assert.equal(back.delivered?.[0]?.text, 'the message asked about');
  assert.equal(back.delivered?.[0]?.files[0]?.id, 'f1');
  assert.equal(typeof back.delivered?.[0]?.files[0]?.download, 'function');
  assert.deepEqual(
    rebuiltFrom.at(-1)?.map((f) => f.url),
    ['https://cdn.example/f1'],
  );
});
