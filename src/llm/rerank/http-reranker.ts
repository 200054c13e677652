// A Reranker over `POST {base}/rerank` (vLLM serving a cross-encoder such as
// BAAI/bge-reranker-v2-m3, the embedded ranking model on loopback, or any server of the same
// shape): one request per search, the query and the candidates' texts, under a deadline and a
// bound on requests in flight. The model is the configured one, else the first /models lists.
import { Semaphore } from '../../util/semaphore.ts';
import { fetchModels } from '../model-info.ts';
import { RerankError, rerankErrorOf } from './rerank-error.ts';
import { parseRerank } from './rerank-wire.ts';
import type { Reranker, RerankOptions } from './reranker.ts';

export interface HttpRerankerOptions {
  /** The OpenAI-compatible base URL, e.g. http://rerank:8000/v1. */
  baseUrl: string;
  /** The model to ask for; empty: the first one the server lists. */
  model: string;
  apiKey?: string | undefined;
  /** Time allowed for one request. */
  timeoutMs: number;
  /** Most requests in flight at once. */
  concurrency: number;
  fetch?: typeof fetch;
}

function isAbort(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError');
}

export class HttpReranker implements Reranker {
  private readonly o: HttpRerankerOptions;
  private readonly url: string;
  private readonly gate: Semaphore;
  private modelId: string | undefined;

  constructor(o: HttpRerankerOptions) {
    this.o = o;
    this.url = `${o.baseUrl.replace(/\/+$/, '')}/rerank`;
    this.gate = new Semaphore(Math.max(1, o.concurrency));
    if (o.model) this.modelId = o.model;
  }

  get id(): string {
    return this.modelId ?? '';
  }

  /** Learns the model when none is configured; returns its id. */
  async ready(signal?: AbortSignal): Promise<string> {
    return this.resolveModel(signal);
  }

  async rerank(
    query: string,
    documents: readonly string[],
    opts: RerankOptions = {},
  ): Promise<number[]> {
    if (documents.length === 0) return [];
    const model = await this.resolveModel(opts.signal);
    const release = await this.gate.acquire();
    try {
      opts.signal?.throwIfAborted();
      const timeout = AbortSignal.timeout(this.o.timeoutMs);
      const both = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
      let body: unknown;
      try {
        const res = await (this.o.fetch ?? fetch)(this.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(this.o.apiKey ? { authorization: `Bearer ${this.o.apiKey}` } : {}),
          },
          body: JSON.stringify({ model, query, documents, top_n: documents.length }),
          signal: both,
        });
        if (!res.ok) {
          await res.body?.cancel();
          if (res.status === 404 && !this.o.model) this.modelId = undefined; // learn again
          throw Object.assign(new Error(`answered HTTP ${res.status}`), {
            status: res.status,
          });
        }
        body = await res.json();
      } catch (err) {
        throw this.failure(err, opts.signal, timeout);
      }
      return parseRerank(body, documents.length);
    } finally {
      release();
    }
  }

  private async resolveModel(signal: AbortSignal | undefined): Promise<string> {
    if (this.modelId !== undefined) return this.modelId;
    signal?.throwIfAborted();
    let models: { id: string }[];
    try {
      models = await fetchModels({
        baseUrl: this.o.baseUrl,
        apiKey: this.o.apiKey,
        timeoutMs: this.o.timeoutMs,
        ...(this.o.fetch ? { fetch: this.o.fetch } : {}),
      });
    } catch (err) {
      throw new RerankError('unavailable', `cannot list the rerank models: ${String(err)}`, {
        cause: err,
      });
    }
    const first = models[0];
    if (!first) throw new RerankError('unavailable', `${this.o.baseUrl} lists no rerank model`);
    this.modelId = first.id;
    return first.id;
  }

  private failure(err: unknown, signal: AbortSignal | undefined, timeout: AbortSignal): Error {
    if (signal?.aborted)
      return new RerankError('aborted', 'the caller stopped waiting', { cause: signal.reason });
    if (timeout.aborted && isAbort(err))
      return new RerankError('timeout', `POST ${this.url} took over ${this.o.timeoutMs} ms`, {
        cause: err,
      });
    if (err instanceof SyntaxError)
      return new RerankError('bad_response', `POST ${this.url} answered with no JSON`, {
        cause: err,
      });
    return rerankErrorOf(err, `POST ${this.url}`);
  }
}
