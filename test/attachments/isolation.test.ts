// Isolation (ARCHITECTURE.md, "Invariants" 1) for files: 200 interleaved turns over 20 sessions in
// 2 workspaces and 4 channels, each with its own files, calling the real search tool concurrently
// with LangChain callbacks attached. Every result holds only the caller's own session, channel and
// project files.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import { analyzeImageTool, searchAttachmentTool } from '../../src/attachments/attachment-tools.ts';
import { AttachmentIndex } from '../../src/attachments/index/index.ts';
import { Ingestor } from '../../src/attachments/ingest.ts';
import { createStore } from '../../src/compose/create-store.ts';
import { applyLangChainEnvironment } from '../../src/config/runtime-env.ts';
import { ModelEndpoint } from '../../src/llm/model-endpoint.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { ownersOf, type ThreadRef } from '../../src/model/thread-ref.ts';
import {
  currentScope,
  NO_SCOPE_MESSAGE,
  runInScope,
  type TurnScope,
} from '../../src/scope/scope.ts';
import type { Store } from '../../src/store/store.ts';
import { mulberry32 } from '../support/prng.ts';

// Seeded, so a failing interleaving can be replayed.
const SEED = 0x5eed;
const random = mulberry32(SEED);

applyLangChainEnvironment();

const WORKSPACES = ['TAAA', 'TBBB'];
const CHANNELS = ['C1', 'C2'];
const refs: ThreadRef[] = Array.from({ length: 20 }, (_, i) => ({
  platform: 'slack',
  projectId: WORKSPACES[i % 2] ?? 'T?',
  channelId: CHANNELS[Math.floor(i / 2) % 2] ?? 'C?',
  sessionId: `17000000${String(i).padStart(2, '0')}.000100`,
}));
const marker = (key: string) => `marker${key.replace(/[^a-z0-9]/gi, '').toLowerCase()}`;

class ScopeAudit extends BaseCallbackHandler {
  name = 'scope-audit';
  readonly seen: (string | undefined)[] = [];
  override async handleToolStart() {
    await sleep(random() * 3);
    this.seen.push(currentScope()?.principal);
  }
  override async handleToolEnd() {
    this.seen.push(currentScope()?.principal);
  }
}

let dir: string;
let store: Store;
let index: AttachmentIndex;
let ingestor: Ingestor;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'tm-iso-'));
  store = await createStore(`sqlite://${path.join(dir, 'db.sqlite')}`);
  index = new AttachmentIndex(store);
  ingestor = new Ingestor({
    index,
    store,
    log: silentLogger(),
    maxFileBytes: 1e6,
    extract: {
      timeoutMs: 10_000,
      maxMemoryMb: 128,
      maxPages: 10,
      maxChars: 1e5,
      maxUnzippedBytes: 1e7,
    },
    images: { maxInputPixels: 1e7, maxSide: 512, timeoutMs: 5000 },
  });
  // Each session, channel and project owns one file whose text names its owner.
  const owners = new Map<string, ReturnType<typeof ownersOf>[number]>();
  for (const ref of refs) for (const o of ownersOf(ref)) owners.set(o.key, o);
  for (const owner of owners.values()) {
    await index.addFile(
      owner,
      {
        fileId: `F-${owner.key}`,
        filename: `${owner.kind}-notes.txt`,
        kind: 'text',
        mime: 'text/plain',
        bytes: 100,
      },
      [{ text: `shared words for every owner: budget report. Owner marker ${marker(owner.key)}.` }],
    );
  }
});

after(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Tool dependencies; the vision endpoint points nowhere and is never called here. */
function toolDeps(maxHits: number) {
  return {
    index,
    ingestor,
    vision: new ModelEndpoint({
      baseUrl: 'http://127.0.0.1:9/v1',
      model: 'x',
      temperature: 0,
      maxReplyTokens: 10,
      requestTimeoutMs: 100,
      maxRetries: 0,
      log: silentLogger(),
    }),
    maxHits,
    waitForIngestMs: 100,
    visionTimeoutMs: 100,
    log: silentLogger(),
  };
}

function scopeOf(i: number): TurnScope {
  const ref = refs[i % refs.length] as ThreadRef;
  return {
    ref,
    principal: `U${i % refs.length}`,
    owners: ownersOf(ref),
    images: [],
    traceId: `t${i}`,
  };
}

test('200 interleaved turns: every search result holds only the caller’s own files', async () => {
  const audit = new ScopeAudit();
  const deps = toolDeps(10);
  const search = searchAttachmentTool(deps);
  const results = await Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      runInScope(scopeOf(i), async () => {
        await sleep(random() * 5);
        const out = String(
          await search.invoke({ query: 'budget report marker' }, { callbacks: [audit] }),
        );
        if (i % 9 === 0) {
          // A turn that throws mid-way must leave nothing behind.
          await Promise.reject(new Error('boom')).catch(() => undefined);
        }
        return { i, out, principalAfter: currentScope()?.principal };
      }),
    ),
  );
  for (const { i, out, principalAfter } of results) {
    const s = scopeOf(i);
    const mine = new Set(s.owners.map((o) => marker(o.key)));
    const found = [...out.matchAll(/marker[a-z0-9]+/g)].map((m) => m[0]);
    assert.ok(found.length >= 3, `turn ${i} found its own three files`);
    for (const m of found) assert.ok(mine.has(m), `turn ${i} saw a foreign file: ${m}`);
    assert.equal(principalAfter, s.principal);
  }
  assert.equal(audit.seen.length, 400);
  assert.ok(
    audit.seen.every((p) => p !== undefined),
    'callbacks ran inside a scope',
  );
  assert.equal(currentScope(), undefined, 'no scope left behind');
});

test('without a conversation scope the tools say so instead of returning nothing', async () => {
  const deps = toolDeps(5);
  assert.equal(await searchAttachmentTool(deps).invoke({ query: 'budget' }), NO_SCOPE_MESSAGE);
  assert.equal(await analyzeImageTool(deps).invoke({ prompt: 'what is this?' }), NO_SCOPE_MESSAGE);
});
