// The store: a probe key written, read back and deleted, through the same Store the bot uses.
import { randomUUID } from 'node:crypto';
import type { Config } from '../config/schema.ts';
import { type CheckGroup, reasonOf } from '../model/check-result.ts';
import type { Store } from '../store/store.ts';
import { withDeadline } from '../util/deadline.ts';

export interface StoreAccess {
  /** The store to probe; `owned` stores are closed afterwards. */
  open(): Promise<{ store: Store; owned: boolean }>;
}

export function storeCheckGroup(config: Config, access: StoreAccess): CheckGroup {
  const redis = /^rediss?:/.test(config.storeUrl);
  const where = redis ? 'Redis' : `SQLite file ${config.storeUrl.slice('sqlite://'.length)}`;
  const fix = redis
    ? 'Check STORE_URL (redis://host:port, with the password in the URL if Redis wants one) and that Redis is running and reachable from here.'
    : 'Check that DATA_DIR (or the path in STORE_URL) exists and that the user running threadmind may write there; for several replicas use STORE_URL=redis://….';
  return {
    names: ['store'],
    async run(ctx, report) {
      const key = `doctor:probe:${randomUUID()}`;
      let opening: Promise<{ store: Store; owned: boolean }> | undefined;
      let opened: { store: Store; owned: boolean } | undefined;
      try {
        // The Redis client has its own connect timeout; this bounds the whole probe either way.
        await withDeadline(
          async () => {
            opening = access.open();
            opened = await opening;
            const { kv } = opened.store;
            await kv.set(key, 'ok', 60_000);
            const back = await kv.get(key);
            await kv.delete(key);
            if (back !== 'ok') throw new Error(`read back ${JSON.stringify(back)} instead of "ok"`);
          },
          ctx.stepTimeoutMs,
          () => new Error(`no answer within ${ctx.stepTimeoutMs} ms`),
        );
        report({
          name: 'store',
          status: 'ok',
          summary: `${where}: a probe key was written, read back and deleted`,
        });
      } catch (err) {
        report({
          name: 'store',
          status: 'fail',
          summary: `${where} ${redis ? 'is not reachable' : 'is not writable'}: ${reasonOf(err)}`,
          fix,
        });
      } finally {
        if (opened?.owned) await opened.store.close().catch(() => undefined);
        // Opened after the deadline: close it whenever it arrives.
        else if (!opened)
          void opening?.then((o) => (o.owned ? o.store.close() : undefined)).catch(() => undefined);
      }
    },
  };
}
