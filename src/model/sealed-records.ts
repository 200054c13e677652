// Records kept encrypted at rest (Slack installations with their tokens). The store seals each
// value; adapters see only this interface and never the key.
export interface SealedRecords {
  get<T>(key: string): Promise<T | undefined>;
  /** `ttlMs`: the record expires (OAuth state); absent: kept until deleted. */
  set(key: string, value: unknown, ttlMs?: number): Promise<void>;
  /** True when the record existed: of two callers deleting one record, only one gets true. */
  delete(key: string): Promise<boolean>;
}
