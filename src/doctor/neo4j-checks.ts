// The knowledge graph with the bot's reader account: reachable, the indexes of
// schema-bootstrap.ts present and online, and a write refused. The write is tried in an explicit
// transaction that is always rolled back, so even a reader that can write leaves nothing behind.
import neo4j, { type Driver, type Session } from 'neo4j-driver';
import type { Config } from '../config/schema.ts';
import { schemaIndexNames } from '../knowledge/schema-bootstrap.ts';
import { aclFilterOf } from '../knowledge/vector-queries.ts';
import {
  type CheckContext,
  type CheckGroup,
  type CheckResult,
  reasonOf,
} from '../model/check-result.ts';
import { settlesWithin, withDeadline } from '../util/deadline.ts';

const READER_FIX =
  'Give NEO4J_USER a read-only role (Neo4j Enterprise/Aura: GRANT ROLE reader TO <user>, and no other role); Neo4j Community has no roles, so every account can write there. The bot itself only opens read transactions, but the account is the real fence.';

/** What a refused write says about the account: refused for lack of rights is what we want. */
export function writeAttemptVerdict(err: unknown): CheckResult {
  const code = String((err as { code?: unknown } | null)?.code ?? '');
  if (code === 'Neo.ClientError.Security.Forbidden') {
    return {
      name: 'neo4j.read_only',
      status: 'ok',
      summary: 'the reader account was refused a write',
    };
  }
  if (code === 'Neo.ClientError.Statement.AccessMode') {
    return {
      name: 'neo4j.read_only',
      status: 'warn',
      summary:
        'the write was refused because the database is read-only here, not because of the account',
      fix: READER_FIX,
    };
  }
  return {
    name: 'neo4j.read_only',
    status: 'warn',
    summary: `the write probe failed for another reason, so the account's rights are unknown: ${reasonOf(err)}`,
    fix: READER_FIX,
  };
}

function step<T>(ctx: CheckContext, work: Promise<T>): Promise<T> {
  return withDeadline(
    work,
    ctx.stepTimeoutMs,
    () => new Error(`no answer within ${ctx.stepTimeoutMs} ms`),
  );
}

async function indexCheck(
  config: Config,
  session: Session,
  ctx: CheckContext,
): Promise<CheckResult> {
  const name = 'neo4j.indexes';
  let rows: { name: string; state: string }[];
  let kernel: string;
  try {
    const res = await step(
      ctx,
      session.executeRead(
        async (tx) => ({
          indexes: await tx.run('SHOW INDEXES YIELD name, state'),
          version: await tx.run(
            "CALL dbms.components() YIELD name, versions WHERE name = 'Neo4j Kernel' RETURN versions[0] AS v",
          ),
        }),
        { timeout: ctx.stepTimeoutMs },
      ),
    );
    rows = res.indexes.records.map((r) => ({
      name: String(r.get('name')),
      state: String(r.get('state')),
    }));
    kernel = String(res.version.records[0]?.get('v') ?? '');
  } catch (err) {
    return {
      name,
      status: 'warn',
      summary: `could not list the indexes: ${reasonOf(err)}`,
      fix: 'Give the reader the SHOW INDEX privilege to let this check run, or list them as an admin (SHOW INDEXES).',
    };
  }
  // The ACL vector index exists where the server can filter with IN inside a vector search.
  const wanted = schemaIndexNames({
    embeddingDimensions: config.knowledge.embeddingDimensions,
    vectorAcl: aclFilterOf(kernel),
  });
  const byName = new Map(rows.map((r) => [r.name, r.state]));
  const missing = wanted.filter((n) => !byName.has(n));
  if (missing.length > 0) {
    return {
      name,
      status: 'fail',
      summary: `missing ${missing.length} of ${wanted.length} indexes: ${missing.join(', ')} — knowledge_search finds nothing without them`,
      fix: 'Run `npm run kg:ingest -- <dir>` once with the writer account (NEO4J_WRITER_USER/PASSWORD): it creates the indexes.',
    };
  }
  const notOnline = wanted.filter((n) => byName.get(n) !== 'ONLINE');
  if (notOnline.length > 0) {
    const failed = notOnline.filter((n) => byName.get(n) === 'FAILED');
    return {
      name,
      status: failed.length > 0 ? 'fail' : 'warn',
      summary: `indexes not online: ${notOnline.map((n) => `${n} (${byName.get(n)})`).join(', ')}`,
      fix:
        failed.length > 0
          ? 'Drop the failed index as an admin and run `npm run kg:ingest` again to recreate it.'
          : 'Wait for the indexes to finish populating.',
    };
  }
  return { name, status: 'ok', summary: `all ${wanted.length} indexes online` };
}

async function writeCheck(session: Session, ctx: CheckContext): Promise<CheckResult> {
  const tx = session.beginTransaction({ timeout: ctx.stepTimeoutMs });
  try {
    await step(ctx, tx.run('CREATE (p:ThreadmindDoctorProbe) RETURN 1'));
  } catch (err) {
    return writeAttemptVerdict(err);
  } finally {
    await step(ctx, tx.rollback()).catch(() => undefined);
  }
  return {
    name: 'neo4j.read_only',
    status: 'fail',
    summary:
      'the reader account (NEO4J_USER) can write to the graph (the probe write was rolled back)',
    fix: READER_FIX,
  };
}

export function neo4jCheckGroups(config: Config): CheckGroup[] {
  const conn = config.neo4j;
  if (!conn) return [];
  const database = conn.database ?? config.knowledge.database;
  return [
    {
      names: ['neo4j.connect', 'neo4j.indexes', 'neo4j.read_only'],
      async run(ctx, report) {
        const driver: Driver = neo4j.driver(conn.uri, neo4j.auth.basic(conn.user, conn.password), {
          connectionAcquisitionTimeout: ctx.stepTimeoutMs,
          connectionTimeout: ctx.stepTimeoutMs,
          maxConnectionPoolSize: 2,
          userAgent: 'threadmind-doctor',
        });
        const skip = (name: string): CheckResult => ({
          name,
          status: 'skip',
          summary: 'not checked: neo4j.connect failed',
        });
        try {
          try {
            const info = await step(ctx, driver.getServerInfo({ database }));
            report({
              name: 'neo4j.connect',
              status: 'ok',
              summary: `${info.agent ?? 'Neo4j'} answers as ${conn.user}, database ${database}`,
            });
          } catch (err) {
            const code = String((err as { code?: unknown }).code ?? '');
            report({
              name: 'neo4j.connect',
              status: 'fail',
              summary: `cannot reach Neo4j at ${conn.uri}: ${reasonOf(err)}`,
              fix: code.startsWith('Neo.ClientError.Security')
                ? 'Check NEO4J_USER and NEO4J_PASSWORD (the reader account).'
                : 'Check NEO4J_URI (neo4j:// or bolt://host:7687) and that Neo4j is running and reachable from here.',
            });
            report(skip('neo4j.indexes'));
            report(skip('neo4j.read_only'));
            return;
          }
          const session = driver.session({ database });
          try {
            report(await indexCheck(config, session, ctx));
            report(await writeCheck(session, ctx));
          } finally {
            await session.close().catch(() => undefined);
          }
        } finally {
          // Closing waits for the server's goodbye; a gone server must not hold the run up.
          await settlesWithin(driver.close(), 1000);
        }
      },
    },
  ];
}
