import { conversationContract } from './conversation-contract.ts';
import { makeWebDriver } from './web-driver.ts';

conversationContract('Web', makeWebDriver);
