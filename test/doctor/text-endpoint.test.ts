// `npm run doctor` checks the text model start-up would use, never loading or downloading it.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { runDoctor } from './setup.ts';

test('nothing configured and a reachable mirror: the doctor says npm start would download the model once', async () => {
  // A mirror that answers the reachability look and nothing else: a download would fail loudly.
  const mirror = http.createServer((_req, res) => res.writeHead(200).end());
  await new Promise<void>((resolve) => mirror.listen(0, '127.0.0.1', resolve));
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tm-plan-'));
  try {
    const { port } = mirror.address() as AddressInfo;
    const run = await runDoctor({ DATA_DIR: dataDir, HF_ENDPOINT: `http://127.0.0.1:${port}/` });
    const models = run.byName.get('llm_text.models');
    assert.equal(models?.status, 'ok');
    assert.match(
      models?.summary ?? '',
      /so npm start downloads the embedded model hf:Qwen\/\S+ once into \S+models, with a progress bar/,
    );
    assert.equal(run.byName.get('llm_text.context')?.status, 'skip');
    assert.equal(run.byName.get('llm_vision.models')?.status, 'skip');
    assert.match(run.byName.get('config')?.summary ?? '', /^web chat only/);
    const models_ = path.join(dataDir, 'models');
    assert.ok(!existsSync(models_) || readdirSync(models_).length === 0);
  } finally {
    mirror.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('LLM_TEXT_BASE_URL=embedded with a missing file: ✗ with the variable to fix', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tm-plan-'));
  try {
    const missing = path.join(dataDir, 'nowhere.gguf');
    const run = await runDoctor({
      DATA_DIR: dataDir,
      LLM_TEXT_BASE_URL: 'embedded',
      LLM_LOCAL_MODEL: missing,
    });
    const models = run.byName.get('llm_text.models');
    assert.equal(models?.status, 'fail');
    assert.match(
      models?.summary ?? '',
      /LLM_TEXT_BASE_URL=embedded: .*cannot run: LLM_LOCAL_MODEL names \S+nowhere\.gguf, which does not exist/,
    );
    assert.match(models?.fix ?? '', /Give LLM_LOCAL_MODEL the path of a \.gguf file/);
    assert.match(models?.summary ?? '', /npm start stops with this message\.$/);
    assert.doesNotMatch(run.output, /localhost:8000/);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
