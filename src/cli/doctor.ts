// `npm run doctor`: checks everything configured and prints a checklist; exits 1 on any ✗.

import { createStore } from '../compose/create-store.ts';
import { ConfigError, loadConfig, secretValuesInEnv } from '../config/load-config.ts';
import type { Config } from '../config/schema.ts';
import { configSecrets, doctorGroups } from '../doctor/checks.ts';
import { formatChecklist } from '../doctor/format.ts';
import { redactor } from '../doctor/redact.ts';
import { runChecks } from '../doctor/run-checks.ts';
import { once, plannedTextEndpoint } from '../doctor/text-endpoint.ts';

async function main(): Promise<{ text: string; code: number }> {
  const started = performance.now();
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    const redact = redactor(secretValuesInEnv());
    return {
      code: 1,
      text: formatChecklist(
        [
          {
            name: 'config',
            status: 'fail',
            summary: `the configuration is not valid (${err.problems.length} problem${err.problems.length === 1 ? '' : 's'}); the other checks need it`,
            fix: redact(err.problems.join('\n')),
          },
        ],
        performance.now() - started,
      ),
    };
  }
  const results = await runChecks(
    doctorGroups(
      config,
      { open: async () => ({ store: await createStore(config.storeUrl), owned: true }) },
      once(() => plannedTextEndpoint(config)),
    ),
    {
      stepTimeoutMs: config.doctor.stepTimeoutMs,
      modelProbes: true,
      redact: redactor([...configSecrets(config), ...secretValuesInEnv()]),
    },
  );
  return {
    text: formatChecklist(results, performance.now() - started),
    code: results.some((r) => r.status === 'fail') ? 1 : 0,
  };
}

// Exit explicitly: a client that keeps a socket open (a Redis reconnect loop) must not keep the
// doctor running after it has answered.
const { text, code } = await main();
process.stdout.write(text, () => process.exit(code));
