// The provider's only way to the graph: READ sessions and executeRead, each transaction with a
// server-side timeout and a client-side deadline (a stalled connection must not outlive the
// request). Nothing here can write: there is no run(), no executeWrite, no WRITE session.
import neo4j, { type Driver, isInt, type ManagedTransaction } from 'neo4j-driver';
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

export function classify(err: unknown, phase: string): KnowledgeQueryError {
  if (err instanceof KnowledgeQueryError) return err;
  const code = codeOf(err);
  const message = err instanceof Error ? err.message : String(err);
  if (/TransactionTimedOut|TransactionTerminated|Transaction\.Terminated|25N05/i.test(code)) {
    return new KnowledgeQueryError('timeout', `${phase}: the graph query timed out`, {
      cause: err,
    });
  }
  if (
    /ServiceUnavailable|SessionExpired|Security\.|ECONNREFUSED|ECONNRESET/i.test(code) ||
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
    if (opts.timeoutMs < 1) {
      throw new KnowledgeQueryError('timeout', `${opts.phase}: no time left before the deadline`);
    }
    const session = this.#driver.session({
      defaultAccessMode: neo4j.session.READ,
      database: this.#database,
    });
    const txWork = (tx: ManagedTransaction) =>
      work(async (cypher, params = {}) => {
        const result = await tx.run(cypher, params);
        return result.records.map((r) => plain(r.toObject()) as Row);
      });
    let timedOut = false;
    try {
      return await withDeadline(
        session.executeRead(txWork, {
          // 0 would mean "no timeout" to the server: never send it.
          timeout: Math.max(1, Math.ceil(opts.timeoutMs)),
          metadata: { app: 'threadmind', phase: opts.phase, trace_id: opts.traceId ?? '' },
        }),
        opts.timeoutMs + CLIENT_GRACE_MS,
        () => new KnowledgeQueryError('timeout', `${opts.phase}: no answer before the deadline`),
      );
    } catch (err) {
      const failure = classify(err, opts.phase);
      timedOut = failure.kind === 'timeout';
      throw failure;
    } finally {
      // After a client-side timeout the session may still be busy; do not wait for it.
      const closing = session.close().catch(() => undefined);
      if (!timedOut) await closing;
    }
  }
}
