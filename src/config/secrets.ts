// The configuration's types that only the environment fills: secrets and the proxy variables.

/** Secrets come only from the environment. */
export interface Secrets {
  slackBotToken?: string;
  slackSigningSecret?: string;
  slackAppToken?: string;
  discordToken?: string;
  llmApiKey?: string;
  webAuthToken?: string;
  slackClientId?: string;
  slackClientSecret?: string;
  /** THREADMIND_ENCRYPTION_KEY, parsed: the first seals, all open (rotation). */
  encryptionKeys?: Buffer[];
}

export interface ProxyEnv {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy?: string;
  /** NODE_USE_ENV_PROXY=1 or --use-env-proxy: only then does Node route its requests through them. */
  nodeUsesEnvProxy: boolean;
}
