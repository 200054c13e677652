// Erasing what the bot stored for one project (a Slack workspace, a Discord server), the same on
// every platform. Every per-project key either starts with `<platform>:<project>:` or is one of the
// older kinds below followed by it (`history:slack:T1:…`); erasing deletes both by prefix, so no
// other project's key can match (ARCHITECTURE.md, "Erasing a project").
import type { Logger } from '../log/logger.ts';
import { type Platform, projectKey } from '../model/thread-ref.ts';
import type { Store } from '../store/store.ts';

export type ErasedKind = 'conversations' | 'files' | 'settings' | 'feedback' | 'other';

export type ErasedCounts = Record<ErasedKind, number>;

export interface ProjectPlace {
  platform: Platform;
  projectId: string;
}

/**
 * Kinds whose keys put a kind before the project key (kept as they are, so stored data stays
 * readable). A new per-project key starts with the project key instead and needs no entry here.
 */
const KIND_PREFIXES: readonly { kind: ErasedKind; prefixes: readonly string[] }[] = [
  // src/store/session-history.ts, src/memory/context-manager.ts (summary state and token counts),
  // src/core/session-state.ts, src/core/thread-context.ts
  {
    kind: 'conversations',
    prefixes: ['history:', 'archive:', 'meta:', 'participating:', 'thread-read:'],
  },
  // src/attachments/index/owner-keys.ts (per owner kind), src/attachments/ingest.ts (image bytes)
  { kind: 'files', prefixes: ['att:session:', 'att:channel:', 'att:project:', 'img:'] },
  // src/core/channel-settings.ts
  { kind: 'settings', prefixes: ['channel-settings:', 'channel-audit:'] },
];

/** Claims that outlive a turn: a file's ingestion claim (a day) would call a re-shared file a duplicate. */
const CLAIM_PREFIXES: readonly string[] = ['ingest:'];
/** Leases under the project (session locks, file-list locks): their generations go too. */
const LEASE_PREFIXES: readonly string[] = ['lock:', 'att:session:', 'att:channel:', 'att:project:'];

/** How long the erase marker lasts: longer than any turn, so a turn that began before sees it. */
const MARKER_TTL_MS = 24 * 60 * 60_000;

export interface ProjectEraserOptions {
  store: Store;
  log: Logger;
  now?: () => number;
}

/** Somewhere else a project's conversations are kept (the split roles' queue): erases them, a count. */
export type ConversationSource = (projectKey: string) => Promise<number>;

export class ProjectEraser {
  private readonly o: ProjectEraserOptions;

  private readonly sources: ConversationSource[] = [];

  constructor(o: ProjectEraserOptions) {
    this.o = o;
  }

  /** Adds a place outside the store that holds conversations (registered once it exists). */
  alsoErase(source: ConversationSource): void {
    this.sources.push(source);
  }

  private now(): number {
    return (this.o.now ?? Date.now)();
  }

  /** Set before anything is deleted, so a turn that began earlier does not write its history back. */
  private markerKey(p: ProjectPlace): string {
    return `${projectKey(p)}:erased-at`;
  }

  /**
   * Deletes everything stored for the project except the keys in `preserve` (the platform's
   * installation, which belongs to uninstalling). Safe to run twice.
   */
  async erase(p: ProjectPlace, preserve: readonly string[] = []): Promise<ErasedCounts> {
    const { store } = this.o;
    const pk = projectKey(p);
    const marker = this.markerKey(p);
    await store.kv.set(marker, this.now(), MARKER_TTL_MS);
    const counts: ErasedCounts = { conversations: 0, files: 0, settings: 0, feedback: 0, other: 0 };
    for (const { kind, prefixes } of KIND_PREFIXES) {
      for (const prefix of prefixes) counts[kind] += await store.deletePrefix(`${prefix}${pk}:`);
    }
    counts.feedback += await store.deletePrefix(`${pk}:feedback:`);
    // Everything else under the project key: transcripts, agent threads, whatever comes next.
    counts.other += await store.deletePrefix(`${pk}:`, [marker, ...preserve]);
    for (const prefix of CLAIM_PREFIXES) await store.deleteClaims(`${prefix}${pk}:`);
    // Claims under the project key (a confirmation answered, a token renewal) go too.
    await store.deleteClaims(`${pk}:`);
    for (const prefix of LEASE_PREFIXES) await store.leases.forget(`${prefix}${pk}:`);
    for (const source of this.sources) counts.conversations += await source(pk);
    return counts;
  }

  /** True when the project was erased at or after `since` (a turn started then keeps nothing). */
  async erasedSince(p: ProjectPlace, since: number): Promise<boolean> {
    const at = await this.o.store.kv.get<number>(this.markerKey(p));
    return typeof at === 'number' && at >= since;
  }
}
