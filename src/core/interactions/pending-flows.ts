// A flow's state between its steps, in the Store with a TTL: a button pressed on another replica,
// on a worker or after a restart finds it; an expired one is gone. Keys start with the project key
// (`<platform>:<project>:flow:…`), so erasing a project drops its pending flows with everything
// else. Taking a step for good is a claim: of two replicas handling one click, one goes ahead.
import type { Place } from '../../model/interaction.ts';
import { channelKey, projectKey } from '../../model/thread-ref.ts';
import type { Store } from '../../store/store.ts';
import type { Project } from './action-refs.ts';

export interface PendingFlow<D = unknown> {
  flow: string;
  key: string;
  /** Who began it. */
  actorId: string;
  /** Where it began (the conversation its messages go to). */
  place: Place;
  data: D;
  expiresAt: number;
  /** Set when a typed reply ("@bot confirm share") may continue it: see `byAlias`. */
  alias?: string;
}

export class PendingFlows {
  private readonly store: Pick<Store, 'kv' | 'claim'>;
  private readonly now: () => number;

  constructor(store: Pick<Store, 'kv' | 'claim'>, now: () => number = Date.now) {
    this.store = store;
    this.now = now;
  }

  private recordKey(project: Project, key: string): string {
    return `${projectKey(project)}:flow:${key}`;
  }

  /** The one pending flow a person may continue by typing, per flow, channel and person. */
  static aliasOf(flow: string, place: Place, actorId: string): string {
    return `${channelKey(place.ref)}:flow-alias:${flow}:${actorId}`;
  }

  async save<D>(p: PendingFlow<D>): Promise<void> {
    const ttl = Math.max(1, p.expiresAt - this.now());
    await this.store.kv.set(this.recordKey(p.place.ref, p.key), p, ttl);
    if (p.alias) await this.store.kv.set(p.alias, p.key, ttl);
  }

  async load<D>(project: Project, key: string): Promise<PendingFlow<D> | undefined> {
    const p = await this.store.kv.get<PendingFlow<D>>(this.recordKey(project, key));
    return p && p.expiresAt > this.now() ? p : undefined;
  }

  /** The key a typed reply continues (see `aliasOf`). */
  async byAlias(alias: string): Promise<string | undefined> {
    const key = await this.store.kv.get<string>(alias);
    return typeof key === 'string' ? key : undefined;
  }

  /**
   * Takes the flow for good: true for exactly one caller, after which it is gone (a second click,
   * or the same reference replayed later, finds nothing).
   */
  async take(p: PendingFlow): Promise<boolean> {
    const pk = projectKey(p.place.ref);
    const ttl = Math.max(1, p.expiresAt - this.now());
    if (!(await this.store.claim(`${pk}:flow-taken:${p.key}`, 'taken', ttl))) return false;
    await this.store.kv.delete(this.recordKey(p.place.ref, p.key));
    if (p.alias && (await this.byAlias(p.alias)) === p.key) await this.store.kv.delete(p.alias);
    return true;
  }
}
