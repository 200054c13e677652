// The doctor's SearXNG check as an operator meets it, against the SearXNG emulator: absent when
// SEARXNG_URL is empty; ✓ when the instance answers JSON; ✗ with the fix when it refuses the JSON
// format (SearXNG's default) or is not there at all.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type SearxngEmulator, startSearxngEmulator } from '../emulators/searxng/index.ts';
import { closedPort, type DoctorSetup, runDoctor, startSetup } from './setup.ts';

describe('the SearXNG check', () => {
  let s: DoctorSetup;
  let searx: SearxngEmulator;
  before(async () => {
    s = await startSetup();
    searx = await startSearxngEmulator();
  });
  after(async () => {
    await searx?.close();
    await s?.close();
  });

  test('no SEARXNG_URL: no check (web search is off), and nothing fails for it', async () => {
    const run = await runDoctor(s.env);
    assert.equal(run.byName.get('web_search'), undefined);
  });

  test('an instance that answers JSON is ✓ and is listed among the egress targets', async () => {
    searx.setJsonEnabled(true);
    const run = await runDoctor({ ...s.env, SEARXNG_URL: searx.url });
    const r = run.byName.get('web_search');
    assert.equal(r?.status, 'ok', r?.summary);
    assert.match(r?.summary ?? '', /answers JSON/);
    assert.match(run.byName.get('egress')?.summary ?? '', /SearXNG/);
  });

  test('JSON not enabled: ✗ naming search.formats', async () => {
    searx.setJsonEnabled(false);
    const r = (await runDoctor({ ...s.env, SEARXNG_URL: searx.url })).byName.get('web_search');
    assert.equal(r?.status, 'fail');
    assert.match(r?.summary ?? '', /refuses the JSON format/);
    assert.match(r?.fix ?? '', /search\.formats/);
    searx.setJsonEnabled(true);
  });

  test('nothing listening: ✗, not reachable, with what to do', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const r = (await runDoctor({ ...s.env, SEARXNG_URL: url })).byName.get('web_search');
    assert.equal(r?.status, 'fail');
    assert.match(r?.summary ?? '', /not reachable/);
    assert.match(r?.fix ?? '', /SEARXNG_URL/);
  });
});
