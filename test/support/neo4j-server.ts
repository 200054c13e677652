// A real Neo4j for the knowledge-graph tests: NEO4J_TEST_URI/USER/PASSWORD when CI (or a developer,
// via `eval "$(neo4j/start.sh)"`) started one, otherwise a private server started here through
// neo4j/start.sh (an embedded community Neo4j built with Maven; needs a JDK >= 21 and mvn). Never
// skips: without a server it throws an error that says what to install or set.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface TestNeo4j {
  uri: string;
  user: string;
  password: string;
  /** The second user neo4j/start.sh creates; community edition gives it the same rights. */
  reader?: { user: string; password: string };
  stop(): Promise<void>;
}

const NEO4J_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../neo4j');
// The first start on a machine builds the launcher (Maven downloads ~200 MB) before Neo4j boots.
const START_TIMEOUT_MS = 10 * 60_000;

const HOW_TO_FIX =
  'Neo4j tests need a real server: either export NEO4J_TEST_URI, NEO4J_TEST_USER and ' +
  'NEO4J_TEST_PASSWORD for a server the tests may write to (`eval "$(neo4j/start.sh)"` starts ' +
  'one), or install a JDK >= 21 (e.g. /usr/lib/jvm/temurin-25-jdk-amd64, or set ' +
  'NEO4J_JAVA_HOME) and Maven (`apt-get install maven`) so that the tests can start one.';

function run(
  file: string,
  args: string[],
  timeoutMs: number,
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      { timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024, killSignal: 'SIGTERM' },
      (err, stdout, stderr) => {
        if (err) reject(Object.assign(err, { stdout, stderr }));
        else resolve({ stdout, stderr });
      },
    );
  });
}

/** Parses `export A=1 B=2 …` as printed by neo4j/start.sh (values are shell-quoted only when needed). */
export function parseExports(line: string): Record<string, string> {
  const out: Record<string, string> = {};
  const body = line.trim().replace(/^export\s+/, '');
  for (const m of body.matchAll(/([A-Z0-9_]+)=((?:\\.|'[^']*'|[^\s\\'])*)/g)) {
    const [, name, raw] = m;
    if (name === undefined || raw === undefined) continue;
    out[name] = raw.replace(/\\(.)|'([^']*)'/g, (_all, esc: string | undefined, quoted) =>
      esc !== undefined ? esc : String(quoted),
    );
  }
  return out;
}

function fromEnv(): TestNeo4j | undefined {
  const uri = process.env.NEO4J_TEST_URI;
  if (!uri) return undefined;
  const user = process.env.NEO4J_TEST_USER || 'neo4j';
  const password = process.env.NEO4J_TEST_PASSWORD;
  if (!password) {
    throw new Error(`NEO4J_TEST_URI is set (${uri}) but NEO4J_TEST_PASSWORD is not. ${HOW_TO_FIX}`);
  }
  const readerUser = process.env.NEO4J_TEST_READER_USER;
  const readerPassword = process.env.NEO4J_TEST_READER_PASSWORD;
  return {
    uri,
    user,
    password,
    ...(readerUser && readerPassword
      ? { reader: { user: readerUser, password: readerPassword } }
      : {}),
    stop: async () => undefined,
  };
}

async function startPrivate(): Promise<TestNeo4j> {
  const runDir = mkdtempSync(path.join(tmpdir(), 'tm-neo4j-'));
  const start = path.join(NEO4J_DIR, 'start.sh');
  const stop = path.join(NEO4J_DIR, 'stop.sh');
  let stdout: string;
  try {
    // --watch-pid: the server stops by itself if this test process dies without calling stop().
    ({ stdout } = await run(
      'bash',
      [start, '--run-dir', runDir, '--watch-pid', String(process.pid)],
      START_TIMEOUT_MS,
    ));
  } catch (err) {
    const e = err as Error & { stderr?: string; code?: unknown };
    await run('bash', [stop, '--run-dir', runDir], 90_000).catch(() => undefined);
    rmSync(runDir, { recursive: true, force: true });
    const detail = (e.stderr ?? '').trim().split('\n').slice(-15).join('\n');
    throw new Error(
      `could not start Neo4j with ${start} (${String(e.code ?? e.message)}):\n${detail}\n${HOW_TO_FIX}`,
    );
  }
  const line = stdout.split('\n').find((l) => l.startsWith('export NEO4J_TEST_URI='));
  const vars = parseExports(line ?? '');
  const { NEO4J_TEST_URI: uri, NEO4J_TEST_USER: user, NEO4J_TEST_PASSWORD: password } = vars;
  if (!uri || !user || !password) {
    await run('bash', [stop, '--run-dir', runDir], 90_000).catch(() => undefined);
    rmSync(runDir, { recursive: true, force: true });
    throw new Error(`${start} printed no NEO4J_TEST_* exports: ${JSON.stringify(stdout)}`);
  }
  const readerUser = vars.NEO4J_TEST_READER_USER;
  const readerPassword = vars.NEO4J_TEST_READER_PASSWORD;
  let stopped: Promise<void> | undefined;
  return {
    uri,
    user,
    password,
    ...(readerUser && readerPassword
      ? { reader: { user: readerUser, password: readerPassword } }
      : {}),
    stop: () => {
      stopped ??= run('bash', [stop, '--run-dir', runDir], 90_000).then(() => {
        rmSync(runDir, { recursive: true, force: true });
      });
      return stopped;
    },
  };
}

/**
 * The Neo4j the tests use. With NEO4J_TEST_URI set, that server (stop() does nothing); otherwise a
 * new private one on a free loopback port, with a fresh empty database, that stop() shuts down.
 */
export async function neo4jForTests(): Promise<TestNeo4j> {
  return fromEnv() ?? (await startPrivate());
}
