// "Not in the files" is an answer: a question the files do not cover gets that, plainly, from
// search_attachment (words only and hybrid), instead of passages that merely share a word; short
// files are read whole instead; a covered question gets its passages and sources.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { attachmentContext } from '../../src/attachments/attachment-context.ts';
import { searchAttachmentTool } from '../../src/attachments/attachment-tools.ts';
import { AttachmentIndex } from '../../src/attachments/index/index.ts';
import { Ingestor } from '../../src/attachments/ingest.ts';
import { createStore } from '../../src/compose/create-store.ts';
import { silentLogger } from '../../src/log/logger.ts';
import type { SourcesArtifact } from '../../src/model/answer-extras.ts';
import { ownersOf, type ThreadRef } from '../../src/model/thread-ref.ts';
import { runInScope } from '../../src/scope/scope.ts';
import type { Store } from '../../src/store/store.ts';
import { TableEmbedder } from './fake-embedders.ts';

let store: Store;
before(async () => {
  store = await createStore('sqlite://:memory:');
});
after(() => store.close());

const HANDBOOK = [
  'Refunds. Annual plans cancelled within thirty days are refunded in full. After that, fees already paid are not refundable.',
  'Security. Report a lost laptop to the service desk at once; it is erased remotely the same day.',
  'Office. The office in Leeds opens at eight and closes at six. Visitors sign in at the front desk.',
  'Travel. Economy class is the rule for flights under six hours; hotels are booked by the travel desk.',
];

function tool(index: AttachmentIndex) {
  const ingestor = new Ingestor({
    index,
    store,
    log: silentLogger(),
    maxFileBytes: 1e6,
    extract: {
      timeoutMs: 1e4,
      maxMemoryMb: 128,
      maxPages: 10,
      maxChars: 1e5,
      maxUnzippedBytes: 1e7,
    },
    images: { maxInputPixels: 1e7, maxSide: 512, timeoutMs: 5000 },
  });
  return searchAttachmentTool({
    index,
    ingestor,
    vision: undefined,
    maxHits: 6,
    waitForIngestMs: 100,
    visionTimeoutMs: 100,
    log: silentLogger(),
  });
}

async function ask(index: AttachmentIndex, ref: ThreadRef, query: string) {
  const scope = { ref, principal: 'U1', owners: ownersOf(ref), images: [], traceId: 't' };
  const msg = await runInScope(scope, () =>
    tool(index).invoke({
      id: 'c1',
      name: 'search_attachment',
      args: { query },
      type: 'tool_call',
    }),
  );
  return { text: String(msg.content), sources: (msg.artifact as SourcesArtifact).sources };
}

const thread = (): ThreadRef => ({
  platform: 'slack',
  projectId: `T${randomUUID().slice(0, 6)}`,
  channelId: 'C1',
  sessionId: '1700.1',
});

async function withHandbook(index: AttachmentIndex, ref: ThreadRef, repeat: number) {
  const [owner] = ownersOf(ref);
  assert.ok(owner);
  const sections = HANDBOOK.flatMap((t) => Array.from({ length: repeat }, () => ({ text: t })));
  await index.addFile(
    owner,
    { fileId: 'hb', filename: 'handbook.pdf', kind: 'pdf', mime: 'application/pdf', bytes: 1 },
    sections.map((s, i) => ({ ...s, page: i + 1 })),
  );
}

const embedder = () =>
  new TableEmbedder(
    'table',
    [
      ['money back', [1, 0, 0, 0]],
      ['refund', [0.9, 0.44, 0, 0]],
      ['wifi', [0, 0, 0, 1]],
    ],
    [0, 0, 1, 0],
  );

describe('search_attachment', () => {
  for (const mode of ['lexical', 'hybrid'] as const) {
    test(`${mode}: a question the files do not cover is answered "not in the files"`, async () => {
      const index = new AttachmentIndex(store, {
        maxChars: 1_000,
        ...(mode === 'hybrid' ? { embedder: embedder() } : {}),
      });
      const ref = thread();
      await withHandbook(index, ref, 3); // bigger than the budget: no reading it whole
      // Shares "office" with the handbook, and nothing else.
      const { text, sources } = await ask(
        index,
        ref,
        'What is the wifi password for the office guests?',
      );
      assert.match(text, /^NOT IN THE FILES: no passage of handbook\.pdf answers/);
      assert.match(text, /files do not cover this/);
      assert.doesNotMatch(text, /Leeds/);
      assert.deepEqual(sources, []);
    });

    test(`${mode}: a covered question gets whole-sentence passages with page and source`, async () => {
      const index = new AttachmentIndex(store, {
        maxChars: 1_000,
        ...(mode === 'hybrid' ? { embedder: embedder() } : {}),
      });
      const ref = thread();
      await withHandbook(index, ref, 3);
      const q = mode === 'hybrid' ? 'how do I get my money back' : 'are annual plans refunded';
      const { text, sources } = await ask(index, ref, q);
      assert.match(
        text,
        /^<data source="search_attachment">\n\[1\] handbook\.pdf, page \d+ \(posted in this thread\)\nRefunds\. Annual plans cancelled within thirty days are refunded in full\./,
      );
      assert.ok(sources.length >= 1 && sources[0]?.title === 'handbook.pdf');
    });
  }

  test('short files no passage matches are given whole, with the instruction to say so', async () => {
    const index = new AttachmentIndex(store);
    const ref = thread();
    await withHandbook(index, ref, 1);
    const { text } = await ask(index, ref, 'What is the wifi password?');
    assert.match(
      text,
      /^No passage matched "What is the wifi password\?" closely; the files are short/,
    );
    assert.match(
      text,
      /\[1\] handbook\.pdf, page \d+ \(posted in this thread\), whole file\n\[page 1\]\n/,
    );
    assert.match(text, /Leeds[\s\S]*travel desk/);
  });

  test('the prompt tells the model what "not in the files" means', async () => {
    const index = new AttachmentIndex(store);
    const ref = thread();
    await withHandbook(index, ref, 1);
    const { section } = await attachmentContext(index, ownersOf(ref));
    assert.match(section ?? '', /NOT IN THE FILES, tell the person the files do not cover/);
  });
});
