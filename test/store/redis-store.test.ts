import { createStore } from '../../src/compose/create-store.ts';
import { startTestRedis } from '../support/redis-server.ts';
import { leaseContract } from './lease-contract.ts';
import { storeContract } from './store-contract.ts';

storeContract('Redis', async () => {
  const redis = await startTestRedis();
  return {
    store: await createStore(redis.url),
    reopen: () => createStore(redis.url),
    cleanup: () => redis.stop(),
  };
});

leaseContract('Redis', async () => {
  const redis = await startTestRedis();
  return {
    store: await createStore(redis.url),
    reopen: () => createStore(redis.url),
    cleanup: () => redis.stop(),
  };
});
