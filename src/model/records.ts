// Small records an adapter keeps in the bot's store (Slack: what each agent-view thread is
// looking at). Keys start with `platform:project:` like every stored key.
export interface Records {
  get<T>(key: string): Promise<T | undefined>;
  /** `ttlMs`: the record expires; absent: kept until overwritten. */
  set(key: string, value: unknown, ttlMs?: number): Promise<void>;
}
