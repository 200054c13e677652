// The Text2Cypher guard refuses writes, procedure calls, unbounded scans and the tricks that hide
// them (comments, case, spacing, unicode look-alikes), and bounds every accepted read with a LIMIT.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { guardCypher } from '../../src/knowledge/cypher-guard.ts';
import { BENIGN, HOSTILE } from './cypher-cases.ts';

const OPTS = { maxRows: 25, maxHops: 3 };

test(`${HOSTILE.length} hostile queries are all refused, each with a reason`, () => {
  assert.ok(HOSTILE.length >= 50);
  const accepted: string[] = [];
  for (const q of HOSTILE) {
    const v = guardCypher(q, OPTS);
    if (v.ok) accepted.push(`${q}  →  ${v.cypher}`);
    else assert.ok(v.reason.length > 0);
  }
  assert.deepEqual(accepted, []);
});

test('benign reads are accepted, rebuilt without comments, and end with a bounded LIMIT', () => {
  for (const [q, shape] of BENIGN) {
    const v = guardCypher(q, OPTS);
    assert.ok(v.ok, `refused: ${q} (${v.ok ? '' : v.reason})`);
    assert.match(v.cypher, shape);
    assert.match(v.cypher, /LIMIT \d+$/);
    assert.ok(v.limit <= OPTS.maxRows);
  }
});

test('a write hidden in a string or a comment stays data and is not what runs', () => {
  const v = guardCypher(
    "MATCH (c:Chunk) /* CREATE (x) */ WHERE c.text = 'DETACH DELETE c' RETURN c.chunk_id AS chunk_id",
    OPTS,
  );
  assert.ok(v.ok);
  assert.equal(
    v.cypher,
    "MATCH (c:Chunk) WHERE c.text = 'DETACH DELETE c' RETURN c.chunk_id AS chunk_id LIMIT 25",
  );
});

test('refusals name the problem', () => {
  const reason = (q: string) => {
    const v = guardCypher(q, OPTS);
    return v.ok ? 'accepted' : v.reason;
  };
  assert.match(reason('MATCH (c:Chunk) SET c.x = 1 RETURN c'), /"SET" is not allowed/);
  assert.match(reason('CALL db.labels()'), /procedure "db.labels"/);
  assert.match(reason('MATCH (n) RETURN n'), /without a label/);
  assert.match(reason('MATCH (a:Chunk)-[*]-(b:Chunk) RETURN b'), /upper bound/);
  assert.match(reason('MATCH (c:Chunk) RETURN c\u200B'), /U\+200b/);
});
