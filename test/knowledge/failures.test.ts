// Honest failures: each way a knowledge request can fail has its own code and its own message.
// Unreachable and refused-credentials run against real sockets (a closed port, the real Neo4j
// with an account that does not exist); the two time limits use a query generator that never
// answers, so the deadline that stops it is the one under test.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import neo4j from 'neo4j-driver';
import { renderKnowledgeResult } from '../../src/knowledge/knowledge-tool.ts';
import { KnowledgeProvider } from '../../src/knowledge/provider.ts';
import type { CypherGenerator } from '../../src/knowledge/text2cypher.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { type KgHarness, startKg } from './kg-harness.ts';

let kg: KgHarness;
before(async () => {
  kg = await startKg();
});
after(async () => {
  await kg?.close();
});

/** A generator that answers only when aborted: the deadline decides. */
const never: CypherGenerator = (_q, _s, signal) =>
  new Promise((_, reject) => {
    signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
  });

test('an unreachable graph is reported as unreachable at once, not as a timeout', async () => {
  const driver = neo4j.driver('bolt://127.0.0.1:1', neo4j.auth.basic('reader', 'x'), {
    connectionAcquisitionTimeout: 10_000,
  });
  try {
    const p = new KnowledgeProvider({ driver, settings: kg.settings, log: silentLogger() });
    const r = await p.retrieve(kg.request('alice', 'order API timeout', { timeout_ms: 5000 }));
    // 'unavailable', not 'timeout': the refused connection ended the search before its deadline.
    assert.equal(r.failure?.kind, 'unavailable', r.failure?.message);
    assert.match(renderKnowledgeResult('q', r), /could not be reached/);
  } finally {
    await driver.close();
  }
});

test('refused credentials are reported as such, not as unreachable', async () => {
  // An account that does not exist: no real account is locked by failed logins.
  const user = `tm-nobody-${randomBytes(4).toString('hex')}`;
  const driver = neo4j.driver(kg.server.uri, neo4j.auth.basic(user, 'wrong'));
  try {
    const p = new KnowledgeProvider({ driver, settings: kg.settings, log: silentLogger() });
    const r = await p.retrieve(kg.request('alice', 'order API timeout'));
    assert.equal(r.failure?.kind, 'unauthorized', r.failure?.message);
    assert.match(renderKnowledgeResult('q', r), /refused the bot's credentials/);
  } finally {
    await driver.close();
  }
});

test('a step past the per-step limit names that limit, not the request’s', async () => {
  const p = kg.provider({
    settings: {
      ...kg.settings,
      phaseTimeoutMs: 300,
      text2cypher: { enabled: true, maxRows: 25, maxHops: 3 },
    },
    generateCypher: never,
  });
  const r = await p.retrieve(
    kg.request('alice', 'x', { retrieval_mode: 'text2cypher', timeout_ms: 10_000 }),
  );
  assert.equal(r.failure?.kind, 'phase_timeout', r.failure?.message);
  assert.match(r.failure?.message ?? '', /within 300 ms \(the per-step limit/);
  const said = renderKnowledgeResult('x', r);
  assert.match(said, /one step of the search ran past its time limit/);
  assert.doesNotMatch(said, /10000 ms/);
});

test('the request past its own deadline is the overall timeout', async () => {
  const p = kg.provider({
    settings: {
      ...kg.settings,
      phaseTimeoutMs: 3000,
      text2cypher: { enabled: true, maxRows: 25, maxHops: 3 },
    },
    generateCypher: never,
  });
  const r = await p.retrieve(
    kg.request('alice', 'x', { retrieval_mode: 'text2cypher', timeout_ms: 400 }),
  );
  assert.equal(r.failure?.kind, 'timeout', r.failure?.message);
  assert.match(r.failure?.message ?? '', /the request's deadline/);
  assert.match(renderKnowledgeResult('x', r), /did not finish within its 400 ms deadline/);
});

test('a bad request or a bad query is a bad query', async () => {
  const p = kg.provider();
  for (const over of [
    { query: '   ' },
    { max_tokens: 0 },
    { freshness_required_at: 'next tuesday' },
  ]) {
    const r = await p.retrieve({ ...kg.request('alice', 'order'), ...over });
    assert.equal(r.failure?.kind, 'bad_query', JSON.stringify(over));
    assert.match(renderKnowledgeResult('order', r), /request was not valid/);
  }
  const refused = await kg
    .provider({
      settings: { ...kg.settings, text2cypher: { enabled: true, maxRows: 25, maxHops: 3 } },
      generateCypher: async () => 'MATCH (c:Chunk) DETACH DELETE c',
    })
    .retrieve(kg.request('alice', 'x', { retrieval_mode: 'text2cypher' }));
  assert.equal(refused.failure?.kind, 'bad_query');
});
