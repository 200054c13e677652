// Smoke test of the real Neo4j the knowledge graph will use (see neo4j/README.md): writes, reads,
// a fulltext index, a vector index, and the server refusing writes in READ access mode, which is
// what the bot's read-only queries rely on. Everything it makes carries a label unique to this run
// and is removed afterwards, so it may run against a shared test server.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import neo4j, { type Driver, Neo4jError } from 'neo4j-driver';
import { neo4jForTests, type TestNeo4j } from '../support/neo4j-server.ts';

const suffix = `${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
const LABEL = `Smoke_${suffix}`;
const FULLTEXT_INDEX = `smoke_fulltext_${suffix}`;
const VECTOR_INDEX = `smoke_vector_${suffix}`;

describe('Neo4j (real server)', () => {
  let server: TestNeo4j;
  let driver: Driver;

  before(async () => {
    server = await neo4jForTests();
    driver = neo4j.driver(server.uri, neo4j.auth.basic(server.user, server.password), {
      disableLosslessIntegers: true,
    });
    await driver.verifyConnectivity();
  });

  after(async () => {
    if (driver) {
      const session = driver.session();
      try {
        await session.run(`DROP INDEX ${FULLTEXT_INDEX} IF EXISTS`);
        await session.run(`DROP INDEX ${VECTOR_INDEX} IF EXISTS`);
        await session.executeWrite((tx) => tx.run(`MATCH (n:${LABEL}) DETACH DELETE n`));
      } finally {
        await session.close();
        await driver.close();
      }
    }
    await server?.stop();
  });

  test('a write transaction creates a node that a read transaction then finds', async () => {
    const session = driver.session();
    try {
      const created = await session.executeWrite((tx) =>
        tx.run(`CREATE (n:${LABEL} {id: $id, title: $title}) RETURN n.id AS id`, {
          id: 'doc-1',
          title: 'Deploying the ingest service',
        }),
      );
      assert.equal(created.records[0]?.get('id'), 'doc-1');
      assert.equal(created.summary.counters.updates().nodesCreated, 1);

      const read = await session.executeRead((tx) =>
        tx.run(`MATCH (n:${LABEL} {id: $id}) RETURN n.title AS title`, { id: 'doc-1' }),
      );
      assert.deepEqual(
        read.records.map((r) => r.get('title')),
        ['Deploying the ingest service'],
      );
    } finally {
      await session.close();
    }
  });

  test('a fulltext index finds nodes by words in their text', async () => {
    const session = driver.session();
    try {
      await session.run(
        `CREATE FULLTEXT INDEX ${FULLTEXT_INDEX} IF NOT EXISTS FOR (n:${LABEL}) ON EACH [n.body]`,
      );
      await session.run('CALL db.awaitIndexes(60)');
      await session.executeWrite((tx) =>
        tx.run(`UNWIND $rows AS row CREATE (n:${LABEL}) SET n = row`, {
          rows: [
            { id: 'ft-1', body: 'The Redis cache evicts keys when memory runs out' },
            { id: 'ft-2', body: 'Slack threads are summarised when they grow long' },
            { id: 'ft-3', body: 'Eviction policy: allkeys-lru for the Redis cache' },
          ],
        }),
      );
      const result = await session.executeRead((tx) =>
        tx.run(
          `CALL db.index.fulltext.queryNodes($index, $query) YIELD node, score
           RETURN node.id AS id, score ORDER BY score DESC`,
          { index: FULLTEXT_INDEX, query: 'redis AND cache' },
        ),
      );
      const ids = result.records.map((r) => r.get('id') as string).sort();
      assert.deepEqual(ids, ['ft-1', 'ft-3']);
    } finally {
      await session.close();
    }
  });

  test('the server refuses writes in a READ session, in executeRead and auto-commit alike', async () => {
    const session = driver.session({ defaultAccessMode: neo4j.session.READ });
    try {
      await assert.rejects(
        session.executeRead((tx) => tx.run(`CREATE (:${LABEL} {id: 'must-not-exist'})`)),
        (err: unknown) => {
          assert.ok(err instanceof Neo4jError, String(err));
          assert.match(err.code, /AccessMode|Forbidden/, err.message);
          return true;
        },
      );
      await assert.rejects(
        session.run(`MERGE (:${LABEL} {id: 'must-not-exist'})`),
        (err: unknown) => err instanceof Neo4jError && /AccessMode|Forbidden/.test(err.code),
      );
    } finally {
      await session.close();
    }
    const check = driver.session();
    try {
      const res = await check.run(`MATCH (n:${LABEL} {id: 'must-not-exist'}) RETURN count(n) AS c`);
      assert.equal(res.records[0]?.get('c'), 0);
    } finally {
      await check.close();
    }
  });

  test('the reader user (when the server has one) can log in and read', async (t) => {
    if (!server.reader) {
      t.skip('no NEO4J_TEST_READER_USER/NEO4J_TEST_READER_PASSWORD given');
      return;
    }
    const reader = neo4j.driver(
      server.uri,
      neo4j.auth.basic(server.reader.user, server.reader.password),
      { disableLosslessIntegers: true },
    );
    try {
      const session = reader.session({ defaultAccessMode: neo4j.session.READ });
      try {
        const res = await session.executeRead((tx) => tx.run('RETURN 1 AS one'));
        assert.equal(res.records[0]?.get('one'), 1);
      } finally {
        await session.close();
      }
    } finally {
      await reader.close();
    }
  });

  test('a vector index returns the nearest nodes first', async (t) => {
    const session = driver.session();
    try {
      const procs = await session.run(
        "SHOW PROCEDURES YIELD name WHERE name = 'db.index.vector.queryNodes' RETURN name",
      );
      if (procs.records.length === 0) {
        t.skip('this Neo4j has no vector indexes (5.13 or newer has them)');
        return;
      }
      await session.run(
        `CREATE VECTOR INDEX ${VECTOR_INDEX} IF NOT EXISTS FOR (n:${LABEL}) ON n.embedding
         OPTIONS {indexConfig: {\`vector.dimensions\`: 3, \`vector.similarity_function\`: 'cosine'}}`,
      );
      await session.run('CALL db.awaitIndexes(60)');
      await session.executeWrite((tx) =>
        tx.run(`UNWIND $rows AS row CREATE (n:${LABEL} {id: row.id, embedding: row.embedding})`, {
          rows: [
            { id: 'vec-x', embedding: [1, 0, 0] },
            { id: 'vec-y', embedding: [0, 1, 0] },
            { id: 'vec-xy', embedding: [0.7, 0.7, 0] },
          ],
        }),
      );
      const result = await session.executeRead((tx) =>
        tx.run(
          `CALL db.index.vector.queryNodes($index, 2, $query) YIELD node, score
           RETURN node.id AS id, score`,
          { index: VECTOR_INDEX, query: [0.9, 0.1, 0] },
        ),
      );
      assert.deepEqual(
        result.records.map((r) => r.get('id')),
        ['vec-x', 'vec-xy'],
      );
      const [best, second] = result.records.map((r) => r.get('score') as number);
      assert.ok(best !== undefined && second !== undefined && best >= second && best > 0.9);
    } finally {
      await session.close();
    }
  });
});
