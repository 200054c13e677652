// The provider's only way to the graph: READ sessions and one read transaction per step, each with
// a server-side timeout and a client-side deadline (a stalled connection must not outlive the
// request). Nothing here can write: a READ session, no executeWrite, no auto-commit run(). The
// transaction is not retried (executeRead would retry an unreachable server until the deadline
// and report a timeout): each failure is reported as what it is.
import neo4j, { type Driver, isInt } from 'neo4j-driver';
import { withDeadline } from '../util/deadline.ts';
import type { FailureKind } from './types.ts';

/** A failed or timed-out graph query, classified for the result's `failure`. */
export class KnowledgeQueryError extends Error {
  readonly kind: FailureKind;
  constructor(kind: FailureKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'KnowledgeQueryError';
    this.kind = kind;
  }
}

export type Row = Record<string, unknown>;
export type Query = (cypher: string, params?: Record<string, unknown>) => Promise<Row[]>;

export interface ReadOptions {
  /** Server-side transaction timeout and client-side deadline, ms. */
  timeoutMs: number;
  /** Names the step in errors and in the transaction metadata (visible in SHOW TRANSACTIONS). */
  phase: string;
  traceId?: string;
  /** Which limit `timeoutMs` is: the per-step ceiling or what is left of the request (default). */
  limit?: 'phase' | 'request';
}

/** The failure of running out of `timeoutMs`, naming which limit it was. */
export function timeoutError(opts: ReadOptions, what = 'no answer'): KnowledgeQueryError {
  const phaseLimit = opts.limit === 'phase';
  return new KnowledgeQueryError(
    phaseLimit ? 'phase_timeout' : 'timeout',
    `${opts.phase}: ${what} within ${Math.max(0, Math.round(opts.timeoutMs))} ms (${
      phaseLimit ? 'the per-step limit, knowledge.phaseTimeoutMs' : "the request's deadline"
    })`,
  );
}

/** How long past the server's own timeout the client waits before giving up on the connection. */
const CLIENT_GRACE_MS = 250;

/** Integers come back as neo4j Integers unless the driver was told otherwise: make them numbers. */
export function plain(v: unknown): unknown {
  if (isInt(v)) return v.toNumber();
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === 'object' && v.constructor === Object) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  }
  return v;
}

function codeOf(err: unknown): string {
  if (typeof err !== 'object' || err === null) return '';
  const { code, gqlStatus } = err as { code?: unknown; gqlStatus?: unknown };
  return `${typeof code === 'string' ? code : ''} ${typeof gqlStatus === 'string' ? gqlStatus : ''}`;
}

export function classify(err: unknown, phase: string, opts?: ReadOptions): KnowledgeQueryError {
  if (err instanceof KnowledgeQueryError) return err;
  const code = codeOf(err);
  const message = err instanceof Error ? err.message : String(err);
  if (/TransactionTimedOut|TransactionTerminated|Transaction\.Terminated|25N05/i.test(code)) {
    const failure = opts
      ? timeoutError(opts, 'the graph query did not finish')
      : new KnowledgeQueryError('timeout', `${phase}: the graph query timed out`);
    return new KnowledgeQueryError(failure.kind, failure.message, { cause: err });
  }
  if (/Security\.(Unauthorized|AuthenticationRateLimit|Forbidden|CredentialsExpired)/i.test(code)) {
    return new KnowledgeQueryError(
      'unauthorized',
      `${phase}: the knowledge graph refused the reader's credentials (NEO4J_USER / NEO4J_PASSWORD)`,
      { cause: err },
    );
  }
  if (
    /Statement\.(SyntaxError|SemanticError|ParameterMissing|TypeError|ArgumentError)/i.test(code)
  ) {
    return new KnowledgeQueryError('bad_query', `${phase}: the query is not valid: ${message}`, {
      cause: err,
    });
  }
  if (
    /ServiceUnavailable|SessionExpired|ECONNREFUSED|ECONNRESET/i.test(code) ||
    /ECONNREFUSED|ECONNRESET|Could not perform discovery|connection.*(closed|refused)/i.test(
      message,
    )
  ) {
    return new KnowledgeQueryError('unavailable', `${phase}: the knowledge graph is unreachable`, {
      cause: err,
    });
  }
  return new KnowledgeQueryError('error', `${phase}: ${message}`, { cause: err });
}

export class ReadRunner {
  readonly #driver: Driver;
  readonly #database: string;

  constructor(driver: Driver, database: string) {
    this.#driver = driver;
    this.#database = database;
  }

  /** Runs `work` in one read transaction; every query it issues shares that transaction's limits. */
  async read<T>(work: (query: Query) => Promise<T>, opts: ReadOptions): Promise<T> {
    if (opts.timeoutMs < 1)
      throw new KnowledgeQueryError(
        'timeout',
        `${opts.phase}: no time left of the request's deadline`,
      );
    const session = this.#driver.session({
      defaultAccessMode: neo4j.session.READ,
      database: this.#database,
    });
    const inTransaction = async (): Promise<T> => {
      const tx = session.beginTransaction({
        // 0 would mean "no timeout" to the server: never send it.
        timeout: Math.max(1, Math.ceil(opts.timeoutMs)),
        metadata: { app: 'threadmind', phase: opts.phase, trace_id: opts.traceId ?? '' },
      });
      try {
        const out = await work(async (cypher, params = {}) => {
          const result = await tx.run(cypher, params);
          return result.records.map((r) => plain(r.toObject()) as Row);
        });
        await tx.commit();
        return out;
      } catch (err) {
        await tx.rollback().catch(() => undefined);
        throw err;
      }
    };
    let timedOut = false;
    try {
      return await withDeadline(inTransaction(), opts.timeoutMs + CLIENT_GRACE_MS, () =>
        timeoutError(opts),
      );
    } catch (err) {
      const failure = classify(err, opts.phase, opts);
      timedOut = failure.kind === 'timeout' || failure.kind === 'phase_timeout';
      throw failure;
    } finally {
      // After a client-side timeout the session may still be busy; do not wait for it.
      const closing = session.close().catch(() => undefined);
      if (!timedOut) await closing;
    }
  }
}
