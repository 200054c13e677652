import { conversationContract } from './conversation-contract.ts';
import { makeSlackDriver } from './slack-driver.ts';

conversationContract('Slack', makeSlackDriver);
