// The knowledge-graph checks against a real Neo4j: unreachable, and a "reader" that can write.
// Neo4j Community (what tests run) has no roles, so a refused write cannot be produced here; the
// verdict on Neo4j's refusal code is checked on its own below.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import neo4j from 'neo4j-driver';
import { writeAttemptVerdict } from '../../src/doctor/neo4j-checks.ts';
import { ensureSchema } from '../../src/knowledge/schema-bootstrap.ts';
import { neo4jForTests, type TestNeo4j } from '../support/neo4j-server.ts';
import { closedPort, type DoctorSetup, runDoctor, startSetup } from './setup.ts';

describe('neo4j checks', () => {
  let graph: TestNeo4j;
  let s: DoctorSetup;
  before(async () => {
    graph = await neo4jForTests();
    s = await startSetup();
  });
  after(async () => {
    await s.close();
    await graph.stop();
  });

  test('an unreachable Neo4j fails with the address to check; the rest is not checked', async () => {
    const port = await closedPort();
    const run = await runDoctor({
      ...s.env,
      NEO4J_URI: `bolt://127.0.0.1:${port}`,
      NEO4J_USER: 'reader',
      NEO4J_PASSWORD: 'whatever-it-is',
    });
    const connect = run.byName.get('neo4j.connect');
    assert.equal(connect?.status, 'fail');
    assert.match(connect?.summary ?? '', /cannot reach Neo4j at bolt:\/\/127\.0\.0\.1/);
    assert.match(connect?.fix ?? '', /NEO4J_URI/);
    assert.equal(run.byName.get('neo4j.indexes')?.status, 'skip');
    assert.equal(run.byName.get('neo4j.read_only')?.status, 'skip');
    assert.ok(run.failed);
  });

  test('a reader account that can write is a failure, and its probe write leaves nothing', async () => {
    const admin = neo4j.driver(graph.uri, neo4j.auth.basic(graph.user, graph.password));
    try {
      await ensureSchema(admin);
      const run = await runDoctor({
        ...s.env,
        NEO4J_URI: graph.uri,
        NEO4J_USER: graph.user,
        NEO4J_PASSWORD: graph.password,
      });
      assert.equal(run.byName.get('neo4j.connect')?.status, 'ok', run.output);
      assert.equal(run.byName.get('neo4j.indexes')?.status, 'ok', run.output);
      const readOnly = run.byName.get('neo4j.read_only');
      assert.equal(readOnly?.status, 'fail');
      assert.match(readOnly?.summary ?? '', /can write to the graph/);
      assert.match(readOnly?.fix ?? '', /read-only role/);
      assert.ok(run.failed);
      const left = await admin.executeQuery('MATCH (p:ThreadmindDoctorProbe) RETURN count(p) AS n');
      assert.equal(left.records[0]?.get('n').toNumber(), 0);
    } finally {
      await admin.close();
    }
  });

  test('a write refused for lack of rights is what a reader should get', () => {
    const refused = Object.assign(new Error('Create node with labels is not allowed'), {
      code: 'Neo.ClientError.Security.Forbidden',
    });
    assert.equal(writeAttemptVerdict(refused).status, 'ok');
    const other = Object.assign(new Error('boom'), { code: 'Neo.TransientError.General.Unknown' });
    assert.equal(writeAttemptVerdict(other).status, 'warn');
  });
});
