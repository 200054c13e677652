// Generated-Cypher cases for the guard: hostile ones it must refuse, benign ones it must accept
// (with the shape of the rewritten query). text2cypher.test.ts runs the benign ones on Neo4j.

export const HOSTILE: string[] = [
  // Plain writes.
  'CREATE (n:Chunk {chunk_id: "x"}) RETURN n',
  "MATCH (c:Chunk) SET c.acl_partition = 'public' RETURN c",
  'MATCH (c:Chunk) DELETE c',
  'MATCH (d:Document) DETACH DELETE d',
  "MERGE (p:Principal {principal_id: 'u1'})-[:MEMBER_OF]->(:Group {name: 'admins'}) RETURN p",
  'MATCH (c:Chunk) REMOVE c.acl_partition RETURN c',
  'MATCH (c:Chunk) REMOVE c:Chunk RETURN c',
  "MATCH (c:Chunk) FOREACH (x IN [1] | SET c.text = 'pwned') RETURN c",
  "INSERT (n:Chunk {chunk_id: 'gql'})",
  'MATCH (c:Chunk) NODETACH DELETE c',
  // Schema and admin.
  'DROP INDEX chunk_text',
  'DROP CONSTRAINT chunk_id_unique IF EXISTS',
  'CREATE INDEX x FOR (n:Chunk) ON (n.text)',
  'SHOW USERS',
  'GRANT ROLE admin TO reader',
  'ALTER USER neo4j SET PASSWORD "x"',
  'USE system SHOW DATABASES',
  'USE other MATCH (n:Chunk) RETURN n',
  'STOP DATABASE neo4j',
  'TERMINATE TRANSACTIONS "neo4j-transaction-1"',
  // Files and procedures.
  "LOAD CSV FROM 'file:///etc/passwd' AS line RETURN line",
  "LOAD CSV WITH HEADERS FROM 'http://evil.example/x.csv' AS r RETURN r",
  "CALL apoc.cypher.runWrite('CREATE (n)', {}) YIELD value RETURN value",
  "CALL apoc.load.json('file:///etc/passwd') YIELD value RETURN value",
  'CALL dbms.security.listUsers()',
  'CALL dbms.killQueries(["q-1"])',
  'CALL db.labels() YIELD label RETURN label',
  'CALL db.createLabel("Owned")',
  "CALL gds.graph.drop('g') YIELD graphName RETURN graphName",
  'CALL `apoc`.`cypher`.`runWrite`("CREATE (n)", {}) YIELD value RETURN value',
  "RETURN apoc.cypher.runFirstColumnSingle('MATCH (n) DETACH DELETE n RETURN 1', {}) AS x",
  "MATCH (c:Chunk) RETURN db.nameFromElementId('4:x:1') AS x",
  'CALL { CREATE (n:Owned) RETURN n } RETURN n',
  'MATCH (c:Chunk) CALL { WITH c SET c.x = 1 } RETURN c',
  'MATCH (c:Chunk) CALL { WITH c DELETE c } IN TRANSACTIONS RETURN 1',
  'USING PERIODIC COMMIT LOAD CSV FROM "file:///x" AS l RETURN l',
  // Hidden writes: comments, case, spacing, string tricks.
  'MATCH (c:Chunk) /* harmless */ cReAtE (x:Owned) RETURN c',
  'MATCH (c:Chunk)\n// just a comment\nDeTaCh\tDELETE c',
  "MATCH (c:Chunk) WHERE c.text = 'it''s' SET c.text = 'x' RETURN c",
  "MATCH (c:Chunk) WHERE c.text = 'a\\\\' SET c.acl_partition = 'public' RETURN c",
  'MATCH (c:Chunk) RETURN c; CREATE (n:Owned)',
  'MATCH (c:Chunk) RETURN c /* unterminated comment CREATE (n)',
  "MATCH (c:Chunk) WHERE c.text = 'unterminated RETURN c",
  'EXPLAIN MATCH (c:Chunk) RETURN c',
  'PROFILE MATCH (c:Chunk) RETURN c',
  ':auto MATCH (c:Chunk) RETURN c',
  'MATCH (c:Chunk) RETURN c UNION MATCH (d:Document) RETURN d AS c',
  // Unicode look-alikes and invisible characters.
  'МERGE (n:Owned) RETURN n', // Cyrillic М
  'MATCH (c:Chunk) ＳＥＴ c.x = 1 RETURN c', // fullwidth
  'MATCH (c:Chunk) DEL\u200BETE c RETURN 1', // zero-width space
  'MATCH (c:Chunk)\u00a0RETURN c', // no-break space
  'MATCH (c:Chunk) RETURN c\u2028CREATE (n)', // line separator
  'MATCH (c:Сhunk) RETURN c', // Cyrillic С in a label
  "RETURN `apoc`.`text`.`join`(['a'], ',') AS x",
  'CALL `db.index.fulltext.queryNodes`("chunk_text", "x") YIELD node RETURN node',
  // Unbounded scans.
  'MATCH (n) RETURN n',
  'MATCH (n) WHERE n.text CONTAINS "x" RETURN n LIMIT 5',
  'MATCH ()-[r]->() RETURN r',
  'MATCH (a:Chunk)-[*]-(b:Chunk) RETURN b',
  'MATCH (a:Chunk)-[:PART_OF*]->(b) RETURN b',
  'MATCH (a:Chunk)-[:PART_OF*2..]->(b) RETURN b',
  'MATCH (a:Chunk)-[:PART_OF*1..50]->(b) RETURN b',
  'MATCH p = shortestPath((a:Chunk)-[*]-(b:Document)) RETURN p',
  'MATCH (a:Chunk)((x)-[:NEXT]->(y))+(b:Chunk) RETURN b',
  'MATCH (a:Chunk)((x)-[:NEXT]->(y)){1,}(b:Chunk) RETURN b',
  'MATCH (a:Chunk)-[:NEXT]->{1,}(b:Chunk) RETURN b',
  'MATCH (a:Chunk)-[:NEXT]->{2,50}(b:Chunk) RETURN b',
  'MATCH (a:Chunk)-[:NEXT]->+(b:Chunk) RETURN b',
  'MATCH (a:Chunk), (b:Chunk), (c:Chunk) RETURN count(*)',
  'MATCH (a:Chunk) MATCH (b:Document) RETURN a, b',
  'UNWIND range(1, 100000000) AS i RETURN count(i)',
  'UNWIND range(0, $n) AS i RETURN i',
  'MATCH (c:Chunk) RETURN c LIMIT $n',
  'MATCH (c:Chunk) RETURN c LIMIT 10 + 1000000',
  'RETURN 1 LIMIT 1e9',
];

export const BENIGN: Array<[string, RegExp]> = [
  ['MATCH (c:Chunk) RETURN c.chunk_id AS chunk_id', /LIMIT 25$/],
  ['MATCH (c:Chunk) RETURN c.chunk_id AS chunk_id LIMIT 5', /LIMIT 5$/],
  ['MATCH (c:Chunk) RETURN c.chunk_id AS chunk_id LIMIT 100000', /LIMIT 25$/],
  [
    "CALL db.index.fulltext.queryNodes('chunk_text', 'timeout') YIELD node, score MATCH (node)-[:PART_OF]->(d:Document) RETURN node.chunk_id AS chunk_id, score ORDER BY score DESC",
    /YIELD node, score MATCH/,
  ],
  [
    "MATCH (d:Document {source_uri: 'docs://adr/1'})<-[:PART_OF]-(c:Chunk) WHERE c.text CONTAINS 'create index' RETURN c.chunk_id AS chunk_id SKIP 2 LIMIT 3",
    /'create index'.*LIMIT 3$/,
  ],
  [
    'MATCH (cl:Claim)-[:SUPPORTED_BY]->(:Evidence)-[:LOCATED_IN]->(c:Chunk) // claims\nRETURN cl.claim_id, c.chunk_id AS chunk_id;',
    /^MATCH .* RETURN cl\.claim_id, c\.chunk_id AS chunk_id LIMIT 25$/,
  ],
  [
    'MATCH (a:Chunk)-[:PART_OF*1..2]->(d:Document) RETURN DISTINCT a.chunk_id AS chunk_id',
    /\*1\.\.2/,
  ],
  [
    "MATCH (e:Entity {name: '결제'})-[:MENTIONED_IN]->(d:Document)<-[:PART_OF]-(c:Chunk) RETURN c.chunk_id AS chunk_id",
    /결제/,
  ],
  [
    'MATCH (d:Document) WHERE d.valid_to IS NULL WITH d ORDER BY d.updated_at DESC MATCH (c:Chunk)-[:PART_OF]->(d) RETURN c.chunk_id AS chunk_id',
    /LIMIT 25$/,
  ],
  ['UNWIND range(1, 10) AS i RETURN i', /range\(1, 10\)/],
  ['MATCH (a:Chunk)-[:NEXT]->{1,2}(b:Chunk) RETURN b.chunk_id AS chunk_id', /\{1,2\}/],
  [
    'MATCH (c:Chunk) WHERE EXISTS { MATCH (c)-[:PART_OF]->(:Document) } RETURN count(*) AS n',
    /count\(\*\)/,
  ],
];
