// Declaring MCP servers: secrets come from the named environment variables (never from YAML), a
// missing one is told with the server's name, and a server needs a URL or a command.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/load-config.ts';

const base = { WEB_ENABLED: 'true', DATA_DIR: '/tmp/tm-mcp-config' };

test('headers and env are read from the variables config/ names', () => {
  const c = loadConfig({
    env: { ...base, JIRA_MCP_AUTH: 'Bearer s3cret', WIKI_KEY: 'k' },
    overrides: {
      mcp: {
        servers: [
          {
            name: 'jira',
            url: 'https://mcp.example.com/mcp',
            headersFromEnv: { Authorization: 'JIRA_MCP_AUTH' },
          },
          {
            name: 'wiki',
            command: 'wiki-mcp',
            args: ['--stdio'],
            envFromEnv: { API_KEY: 'WIKI_KEY' },
            private: true,
          },
        ],
      },
    },
  });
  assert.deepEqual(
    c.mcpServers.map((s) => [s.name, s.headers, s.env, s.private]),
    [
      ['jira', { Authorization: 'Bearer s3cret' }, {}, false],
      ['wiki', {}, { API_KEY: 'k' }, true],
    ],
  );
});

test('a missing secret, a server with neither url nor command, a name with "__": all told at once', () => {
  assert.throws(
    () =>
      loadConfig({
        env: base,
        overrides: {
          mcp: {
            servers: [
              {
                name: 'jira',
                url: 'https://mcp.example.com/mcp',
                headersFromEnv: { Authorization: 'JIRA_MCP_AUTH' },
              },
              { name: 'bad__name', url: 'https://x.example.com' },
              { name: 'nothing' },
            ],
          },
        },
      }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.match(err.message, /"__"/);
      assert.match(err.message, /either url .* or command/);
      return true;
    },
  );
  assert.throws(
    () =>
      loadConfig({
        env: base,
        overrides: {
          mcp: {
            servers: [
              {
                name: 'jira',
                url: 'https://mcp.example.com/mcp',
                headersFromEnv: { Authorization: 'JIRA_MCP_AUTH' },
              },
            ],
          },
        },
      }),
    /mcp server "jira": JIRA_MCP_AUTH is not set/,
  );
});
