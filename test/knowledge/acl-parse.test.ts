// Pure parts: access resolution, the application-side ACL twin and final check, the Lucene query
// builder, and ingest parsing (front matter, naive claims, entities, ids).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canSee, resolveAccess } from '../../src/knowledge/acl.ts';
import { parseMeta, splitFrontMatter } from '../../src/knowledge/document-meta.ts';
import { claimSentences, entitiesOf, planDocument } from '../../src/knowledge/document-plan.ts';
import { finalCheck, remainderText } from '../../src/knowledge/items.ts';
import { keepsAWord, luceneQuery, narrowLucene } from '../../src/knowledge/lucene-query.ts';
import type { KnowledgeItem } from '../../src/knowledge/types.ts';

const CONFIG = {
  principalGroups: { u1: ['eng'], u2: ['sec'] },
  groupPartitions: { eng: ['ops'] },
};

test('groups merge config and graph; partitions add mappings; allowed_scopes only narrows', () => {
  const a = resolveAccess('u1', ['sec'], ['*'], CONFIG);
  assert.deepEqual(a.groups, ['eng', 'sec']);
  // The principal's own id is a partition too: documents granted to one person.
  assert.deepEqual(a.partitions, ['eng', 'ops', 'sec', 'u1']);
  assert.equal(a.scopeDenied, 0);
  const narrowed = resolveAccess('u1', [], ['ops', 'sec', 'public'], CONFIG);
  assert.deepEqual(narrowed.partitions, ['ops']);
  assert.equal(narrowed.scopeDenied, 1);
  assert.deepEqual(resolveAccess('u1', [], [], CONFIG).partitions, []);
  assert.deepEqual(resolveAccess('nobody', [], ['*'], CONFIG).partitions, ['nobody']);
  assert.deepEqual(resolveAccess('nobody', [], ['eng'], CONFIG).partitions, []);
});

test('canSee needs both partitions permitted and a shared group; anything odd fails closed', () => {
  const a = resolveAccess('u1', [], ['*'], CONFIG);
  const ok = { chunkPartition: 'eng', documentPartition: 'eng', allowedGroups: ['eng'] };
  assert.equal(canSee(a, ok), true);
  assert.equal(canSee(a, { ...ok, chunkPartition: 'sec' }), false);
  assert.equal(canSee(a, { ...ok, documentPartition: 'sec' }), false);
  assert.equal(canSee(a, { ...ok, allowedGroups: ['sec'] }), false);
  assert.equal(canSee(a, { ...ok, allowedGroups: [] }), false);
  assert.equal(canSee(a, { ...ok, allowedGroups: 'eng' }), false);
  assert.equal(canSee(a, { ...ok, chunkPartition: null }), false);
});

test('final check: facts read again must match the item and be visible', () => {
  const a = resolveAccess('u1', [], ['*'], CONFIG);
  const item = (chunk: string, uri: string): KnowledgeItem => ({
    claim_id: null,
    content: 'x',
    source_uri: uri,
    chunk_id: chunk,
    document_version: null,
    freshness: 'unknown',
    provenance_path: [`Chunk:${chunk}`, `Document:${uri}`],
    retrieval_scores: {},
  });
  const fact = (chunk: string, uri: string, partition = 'eng') => ({
    chunk_id: chunk,
    source_uri: uri,
    chunk_partition: partition,
    document_partition: partition,
    allowed_groups: [partition],
  });
  const { passed, failed } = finalCheck(
    [item('c1', 'kb://a'), item('c2', 'kb://b'), item('c3', 'kb://c'), item('c4', 'kb://d')],
    [fact('c1', 'kb://a'), fact('c2', 'kb://other'), fact('c3', 'kb://c', 'sec')],
    a,
  );
  assert.deepEqual(
    passed.map((i) => i.chunk_id),
    ['c1'],
  );
  assert.equal(failed, 3);
});

test('the Lucene query keeps words only: no operators, fields, wildcards or fuzziness', () => {
  assert.equal(luceneQuery('Order API timeout?'), 'order api timeout');
  assert.equal(
    luceneQuery('text:* OR acl_partition:sec~2 AND NOT x'),
    'text or acl partition sec 2 and not x',
  );
  assert.equal(luceneQuery('주문 API 제한 시간'), '주문 api 제한 시간');
  assert.equal(luceneQuery('***'), '');
});

test('a narrow reader’s query names their partitions as phrases that do not change the score', () => {
  assert.equal(
    narrowLucene('order timeout', ['eng-1', 'slack:T1:U1']),
    '+text:(order timeout) +(acl_partitions:"eng-1" acl_partition:"eng-1" ' +
      'acl_partitions:"slack:T1:U1" acl_partition:"slack:T1:U1")^0',
  );
  // A partition name is data, never syntax: quotes and backslashes stay inside the phrase.
  assert.equal(
    narrowLucene('x', ['a"b\\c) OR *:*']),
    '+text:(x) +(acl_partitions:"a\\"b\\\\c) OR *:*" acl_partition:"a\\"b\\\\c) OR *:*")^0',
  );
});

test('no partition clause when the analyzer could leave a name or the question without a word', () => {
  // The analyzer drops English stop words: a partition called "the" would match nothing.
  assert.equal(keepsAWord('the'), false);
  assert.equal(keepsAWord('it-is'), false);
  assert.equal(keepsAWord('--'), false);
  assert.equal(keepsAWord('\u0130T'), false, 'Java lower-cases İ to i: "it"');
  assert.equal(keepsAWord('ＴＨＥ'), false, 'full-width letters fold to "the"');
  assert.equal(keepsAWord('the-team'), true);
  assert.equal(keepsAWord('영업'), true);
  assert.equal(narrowLucene('order', ['eng', 'the']), undefined);
  assert.equal(narrowLucene('the a', ['eng']), undefined);
  assert.equal(narrowLucene('order', []), undefined);
  const many = Array.from({ length: 101 }, (_, i) => `p${i}`);
  assert.equal(narrowLucene('order', many), undefined);
});

test('front matter: groups are required, dates normalised, lists or scalars accepted', () => {
  const { yaml, body } = splitFrontMatter(
    '---\ngroups: eng\nvalid_from: 2024-03-01\n---\n# Title\nBody',
  );
  assert.equal(body, '# Title\nBody');
  const meta = parseMeta(yaml ?? '', 'a.md');
  assert.deepEqual(meta.groups, ['eng']);
  assert.equal(meta.valid_from, '2024-03-01T00:00:00.000Z');
  assert.equal(splitFrontMatter('# no front matter').yaml, undefined);
  assert.throws(() => parseMeta('title: x', 'b.md'), /b\.md: groups/);
  assert.throws(() => parseMeta('groups: []', 'c.md'), /at least one group/);
  assert.throws(() => parseMeta('groups: [a]\nvalid_to: soon', 'd.md'), /not a date/);
});

test('claims are sentences with a number or an obligation; ids are stable content hashes', () => {
  assert.deepEqual(
    claimSentences(
      '# Limits\n\nThe timeout must be 3 seconds. It was chosen long ago. 배포 전에 반드시 검토해야 한다.',
    ),
    ['The timeout must be 3 seconds.', '배포 전에 반드시 검토해야 한다.'],
  );
  assert.deepEqual(entitiesOf('See `order-api` and ADR-002.', ['Checkout']), [
    'ADR-002',
    'Checkout',
    'order-api',
  ]);
  const plan = () =>
    planDocument({
      sourceUri: 'kb://a.md',
      meta: parseMeta('groups: [eng, ops]\nversion: 3', 'a.md'),
      sections: [{ text: 'The timeout must be 3 seconds.\n\nIntro text without facts.' }],
      fallbackTitle: 'a',
      modifiedAt: '2024-01-01T00:00:00.000Z',
      supersedes: [],
    });
  const p = plan();
  assert.deepEqual(plan(), p);
  assert.equal(p.acl_partition, 'eng');
  assert.equal(p.source_version, '3');
  assert.equal(p.claims.length, 1);
  assert.match(p.claims[0]?.claim_id ?? '', /^claim-[0-9a-f]{16}$/);
  assert.equal(
    remainderText(
      'The timeout must be 3 seconds. The rest explains why it was picked in 2019 at all.',
      new Set(['The timeout must be 3 seconds.']),
    ),
    'The rest explains why it was picked in 2019 at all.',
  );
});
