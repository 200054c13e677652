import type { Logger } from '../log/logger.ts';
import { createChatModel, type OfflineChatOpenAI } from './chat-model.ts';
import { fetchModelInfo, type ModelInfo } from './model-info.ts';

export interface ModelEndpointOptions {
  baseUrl: string;
  model: string;
  apiKey?: string | undefined;
  temperature: number;
  maxReplyTokens: number;
  requestTimeoutMs: number;
  maxRetries: number;
  /** Stream replies (the text model) or not (the vision model, read whole by a tool). */
  streaming?: boolean;
  log: Logger;
  fetch?: typeof fetch;
}

export interface ResolvedModel {
  chat: OfflineChatOpenAI;
  info: ModelInfo;
}

/**
 * A model server (text or vision). Which model is served is learnt from /v1/models on first use (not at start-up,
 * so the bot starts while the GPU node is still loading) and kept once known.
 */
export class ModelEndpoint {
  private resolved: Promise<ResolvedModel> | undefined;
  private readonly o: ModelEndpointOptions;

  constructor(o: ModelEndpointOptions) {
    this.o = o;
  }

  get baseUrl(): string {
    return this.o.baseUrl;
  }

  resolve(): Promise<ResolvedModel> {
    if (!this.resolved) {
      this.resolved = this.discover();
      // A failed discovery is retried on the next turn rather than cached.
      this.resolved.catch(() => {
        this.resolved = undefined;
      });
    }
    return this.resolved;
  }

  private async discover(): Promise<ResolvedModel> {
    const info = await fetchModelInfo(
      {
        baseUrl: this.o.baseUrl,
        apiKey: this.o.apiKey,
        timeoutMs: 10_000,
        ...(this.o.fetch ? { fetch: this.o.fetch } : {}),
      },
      this.o.model,
    );
    this.o.log.info(
      { model: info.id, max_model_len: info.maxModelLen, base_url: this.o.baseUrl },
      'text model resolved',
    );
    const chat = createChatModel({
      baseUrl: this.o.baseUrl,
      model: info.id,
      apiKey: this.o.apiKey,
      temperature: this.o.temperature,
      maxTokens: this.o.maxReplyTokens,
      timeoutMs: this.o.requestTimeoutMs,
      maxRetries: this.o.maxRetries,
      streaming: this.o.streaming ?? true,
    });
    return { chat, info };
  }

  /** The same model with another reply budget and no streaming (summaries, one-off calls). */
  async variant(maxReplyTokens: number): Promise<OfflineChatOpenAI> {
    const { info } = await this.resolve();
    return createChatModel({
      baseUrl: this.o.baseUrl,
      model: info.id,
      apiKey: this.o.apiKey,
      temperature: 0.1,
      maxTokens: maxReplyTokens,
      timeoutMs: this.o.requestTimeoutMs,
      maxRetries: this.o.maxRetries,
      streaming: false,
    });
  }

  /** For /readyz: the server answers /models within a short time. */
  async check(timeoutMs = 3000): Promise<void> {
    await fetchModelInfo(
      {
        baseUrl: this.o.baseUrl,
        apiKey: this.o.apiKey,
        timeoutMs,
        ...(this.o.fetch ? { fetch: this.o.fetch } : {}),
      },
      this.o.model,
    );
  }
}
