import { conversationContract } from './conversation-contract.ts';
import { makeSlackDriver } from './slack-driver.ts';
import { threadContextContract } from './thread-context-contract.ts';

conversationContract('Slack', makeSlackDriver);
threadContextContract('Slack', makeSlackDriver);
