// `npm run doctor` against the emulators: a healthy set-up is all ✓ and exits 0; each fault an
// operator meets is reported with its fix, and any ✗ makes the exit code 1.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { manifestBotScopes } from '../../adapters/slack/slack-doctor.ts';
import { startTestRedis } from '../support/redis-server.ts';
import { closedPort, type DoctorSetup, doctorProcess, runDoctor, startSetup } from './setup.ts';

/** Checks a healthy set-up must show, in this order (others may come between them). */
const HEALTHY = [
  'config',
  'slack.auth',
  'slack.scopes',
  'slack.socket_mode',
  'discord.token',
  'discord.message_content',
  'discord.commands',
  'llm_text.models',
  'llm_text.context',
  'llm_text.tokenize',
  'llm_text.tool_calls',
  'llm_text.priority',
  'llm_vision.models',
  'llm_vision.image',
  'llm_embed',
  'llm_rerank',
  'store',
  'egress',
];

describe('a healthy set-up', () => {
  let s: DoctorSetup;
  before(async () => {
    s = await startSetup();
  });
  after(() => s.close());

  test('npm run doctor prints every check as ✓, in a stable order, and exits 0', async () => {
    const run = await doctorProcess(s.env);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const lines = run.stdout.split('\n').filter((l) => /^[✓⚠✗–] /.test(l));
    const names = lines.map((l) => l.split(/\s+/)[1] ?? '');
    assert.deepEqual(
      names.filter((n) => HEALTHY.includes(n)),
      HEALTHY,
      'every check of a healthy set-up is shown, in the declared order',
    );
    assert.equal(new Set(names).size, names.length, 'no check shown twice');
    for (const line of lines) assert.match(line, /^✓ /, line);
    // The summary counts what was shown: all of it ok, whatever the number of checks.
    assert.match(run.stdout, new RegExp(`\\b${lines.length} ok, 0 warnings, 0 failed`));
    assert.doesNotMatch(run.stdout, /fix:/);
    // The emulator runs without the priority policy: ✓, and how to turn it on.
    assert.match(run.stdout, /✓ llm_text\.priority .*--scheduling-policy priority/);
    // The tool-call probe asks the way the agent does: tools offered, tool_choice auto.
    const probe = s.text.requests.find((r) => Array.isArray(r.body.tools));
    assert.equal(probe?.body.tool_choice, 'auto');
    assert.ok(
      s.vision.requests.some((r) =>
        JSON.stringify(r.body.messages).includes('data:image/png;base64,'),
      ),
      'the vision probe sent an image',
    );
  });
});

describe('faults, each reported with its fix', () => {
  test('a bot token without every scope of the manifest', async () => {
    const granted = ['app_mentions:read', 'channels:history', 'chat:write', 'files:read'];
    const s = await startSetup({ slackScopes: granted });
    try {
      const run = await runDoctor(s.env);
      const scopes = run.byName.get('slack.scopes');
      assert.equal(scopes?.status, 'fail');
      // Whatever the manifest asks for today: every scope the token lacks is named, and counted.
      const missing = manifestBotScopes().filter((m) => !granted.includes(m));
      assert.ok(missing.includes('commands') && missing.includes('usergroups:read'));
      assert.match(scopes?.summary ?? '', new RegExp(`lacks ${missing.length} scopes`));
      const listed = (scopes?.summary ?? '').split('asks for: ')[1]?.split(', ') ?? [];
      assert.deepEqual([...listed].sort(), [...missing].sort());
      assert.match(scopes?.fix ?? '', /reinstall the app/);
      assert.equal(run.byName.get('slack.auth')?.status, 'ok');
      assert.ok(run.failed);
    } finally {
      await s.close();
    }
  });

  test('the Message Content intent switched off in the portal', async () => {
    const s = await startSetup({ discord: { privilegedIntents: { messageContent: false } } });
    try {
      const run = await runDoctor(s.env);
      const intent = run.byName.get('discord.message_content');
      assert.equal(intent?.status, 'fail');
      assert.match(
        intent?.fix ?? '',
        /Privileged Gateway Intents → turn on Message Content Intent/,
      );
      assert.equal(run.byName.get('discord.token')?.status, 'ok');
      assert.ok(run.failed);
    } finally {
      await s.close();
    }
  });

  test('slash commands never registered: a warning naming the command to run', async () => {
    const s = await startSetup({ registerCommands: false });
    try {
      const run = await runDoctor(s.env);
      const commands = run.byName.get('discord.commands');
      assert.equal(commands?.status, 'warn');
      assert.match(commands?.summary ?? '', /\/ask, \/summarize, \/files, \/forget/);
      assert.match(commands?.fix ?? '', /npm run discord:register/);
      assert.equal(run.failed, false);
    } finally {
      await s.close();
    }
  });

  test('tool calling off: tool requests answered with plain text and no tool call', async () => {
    const s = await startSetup({ text: { toolCalling: 'plain-text' } });
    try {
      const run = await runDoctor(s.env);
      const tools = run.byName.get('llm_text.tool_calls');
      assert.equal(tools?.status, 'fail');
      assert.match(tools?.summary ?? '', /plain text/);
      assert.match(tools?.fix ?? '', /--enable-auto-tool-choice --tool-call-parser <parser>/);
      assert.ok(run.failed);
    } finally {
      await s.close();
    }
  });

  test('tool calling off: vLLM refusing tool_choice auto without the flags', async () => {
    const s = await startSetup({ text: { toolCalling: 'reject-auto' } });
    try {
      const run = await runDoctor(s.env);
      const tools = run.byName.get('llm_text.tool_calls');
      assert.equal(tools?.status, 'fail');
      assert.match(tools?.summary ?? '', /"auto" tool choice requires --enable-auto-tool-choice/);
      assert.match(tools?.fix ?? '', /--enable-auto-tool-choice --tool-call-parser/);
    } finally {
      await s.close();
    }
  });

  test('a context window smaller than the compression threshold plus a reply', async () => {
    const s = await startSetup({ text: { models: [{ id: 'tiny', max_model_len: 2048 }] } });
    try {
      const run = await runDoctor(s.env);
      const context = run.byName.get('llm_text.context');
      assert.equal(context?.status, 'fail');
      assert.match(context?.summary ?? '', /max_model_len 2048 is too small/);
      assert.match(context?.fix ?? '', /--max-model-len/);
      assert.ok(run.failed);
    } finally {
      await s.close();
    }
  });

  test('a server without /tokenize: a warning naming the fallback', async () => {
    const s = await startSetup({ text: { tokenize: false } });
    try {
      const run = await runDoctor(s.env);
      const tokenize = run.byName.get('llm_text.tokenize');
      assert.equal(tokenize?.status, 'warn');
      assert.match(tokenize?.summary ?? '', /usage plus an estimate/);
      assert.equal(run.failed, false);
    } finally {
      await s.close();
    }
  });

  test('a vision endpoint that is really a text model', async () => {
    const s = await startSetup({ vision: { images: false } });
    try {
      const run = await runDoctor(s.env);
      const image = run.byName.get('llm_vision.image');
      assert.equal(image?.status, 'fail');
      assert.match(image?.summary ?? '', /refused an image: .*is not a multimodal model/);
      assert.match(image?.fix ?? '', /vision-language model/);
      assert.equal(run.byName.get('llm_vision.models')?.status, 'ok');
    } finally {
      await s.close();
    }
  });

  test('an unreachable Redis store', async () => {
    const s = await startSetup();
    try {
      const port = await closedPort();
      const run = await runDoctor({ ...s.env, STORE_URL: `redis://127.0.0.1:${port}` }, 2000);
      const store = run.byName.get('store');
      assert.equal(store?.status, 'fail');
      assert.match(store?.summary ?? '', /Redis is not reachable/);
      assert.match(store?.fix ?? '', /STORE_URL/);
    } finally {
      await s.close();
    }
  });

  test('a reachable Redis store passes the write-read-delete probe', async (t) => {
    const redis = await startTestRedis();
    t.after(() => redis.stop());
    const s = await startSetup();
    try {
      const run = await runDoctor({ ...s.env, STORE_URL: redis.url });
      assert.equal(run.byName.get('store')?.status, 'ok', run.output);
      assert.match(run.byName.get('store')?.summary ?? '', /written, read back and deleted/);
    } finally {
      await s.close();
    }
  });

  test('an invalid configuration is the first ✗, with every problem, and exit code 1', async () => {
    const run = await doctorProcess({ SLACK_BOT_TOKEN: 'not-a-token', PORT: 'abc' });
    assert.equal(run.code, 1);
    const lines = run.stdout.split('\n').filter((l) => /^[✓⚠✗–] /.test(l));
    assert.match(lines[0] ?? '', /^✗ config +the configuration is not valid \(3 problems\)/);
    assert.match(run.stdout, /SLACK_BOT_TOKEN must be a bot token starting with xoxb-/);
    assert.match(run.stdout, /PORT must be a whole number/);
  });
});

describe('Slack installed through OAuth', () => {
  function oauthEnv(s: DoctorSetup, over: Record<string, string> = {}): Record<string, string> {
    const { SLACK_BOT_TOKEN: _bot, SLACK_APP_TOKEN: _app, ...env } = s.env;
    return {
      ...env,
      SLACK_CLIENT_ID: s.slack.oauthClient.id,
      SLACK_CLIENT_SECRET: s.slack.oauthClient.secret,
      SLACK_SIGNING_SECRET: 'doctor-signing-secret',
      THREADMIND_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      SLACK_REDIRECT_URL: 'https://bot.example.test/slack/oauth_redirect',
      ...over,
    };
  }

  test('the client id and secret are probed, and the redirect address checked', async () => {
    const s = await startSetup();
    try {
      const run = await runDoctor(oauthEnv(s));
      assert.equal(run.byName.get('slack.oauth_client')?.status, 'ok', run.output);
      assert.equal(run.byName.get('slack.oauth_redirect')?.status, 'ok', run.output);
      assert.equal(run.byName.has('slack.auth'), false, 'no single bot token to test');
      const wrong = await runDoctor(
        oauthEnv(s, {
          SLACK_CLIENT_SECRET: 'not-the-secret',
          SLACK_REDIRECT_URL: 'http://bot.example.test/install',
        }),
      );
      const client = wrong.byName.get('slack.oauth_client');
      assert.equal(client?.status, 'fail');
      assert.match(client?.summary ?? '', /bad_client_secret/);
      assert.match(client?.fix ?? '', /SLACK_CLIENT_SECRET/);
      assert.doesNotMatch(wrong.output, /not-the-secret/, 'the secret is never printed');
      assert.equal(wrong.byName.get('slack.oauth_redirect')?.status, 'fail');
    } finally {
      await s.close();
    }
  });
});
