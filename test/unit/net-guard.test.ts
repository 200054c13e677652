import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { takeNetworkViolations } from '../support/net-guard.ts';

test('the network guard refuses a connection off loopback and records it', async () => {
  const socket = net.connect({ host: '203.0.113.7', port: 443 });
  const err = await new Promise<Error>((resolve) => socket.once('error', resolve));
  assert.match(err.message, /network guard/);
  const taken = takeNetworkViolations();
  assert.equal(taken.length, 1);
  assert.match(taken[0] ?? '', /203\.0\.113\.7/);
});

test('the network guard lets loopback connections through', async () => {
  const server = net.createServer((s) => s.end('hi'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  const data = await new Promise<string>((resolve, reject) => {
    const c = net.connect({ host: '127.0.0.1', port }, () => undefined);
    c.on('data', (d) => resolve(String(d)));
    c.on('error', reject);
  });
  server.close();
  assert.equal(data, 'hi');
});
