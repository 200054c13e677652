// A Reranker over `POST {base}/rerank` (vLLM serving a cross-encoder such as
// BAAI/bge-reranker-v2-m3, the embedded ranking model on loopback, or any server of the same
// shape): one request per search, the query and the candidates' texts, under a deadline and a
// bound on requests in flight. The model is the configured one, else the first /models lists.
import { SideModelHttp } from '../side-http.ts';
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

export class HttpReranker implements Reranker {
  private readonly http: SideModelHttp;
  private modelId: string | undefined;

  constructor(o: HttpRerankerOptions) {
    this.http = new SideModelHttp(
      { ...o, path: 'rerank' },
      {
        noun: 'rerank',
        make: (reason, message, cause) => new RerankError(reason, message, { cause }),
        classify: rerankErrorOf,
        onNotFound: () => {
          if (!o.model) this.modelId = undefined; // learn again
        },
      },
    );
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
    const body = await this.http.post(
      { model, query, documents, top_n: documents.length },
      opts.signal,
    );
    return parseRerank(body, documents.length);
  }

  private async resolveModel(signal: AbortSignal | undefined): Promise<string> {
    if (this.modelId !== undefined) return this.modelId;
    this.modelId = await this.http.firstModel(signal);
    return this.modelId;
  }
}
