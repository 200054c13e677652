import { commandsContract } from './commands-contract.ts';
import { eraseContract } from './erase-contract.ts';
import { feedbackContract } from './feedback-contract.ts';
import { shareContract } from './interaction-contract.ts';
import { settingsContract } from './settings-contract.ts';
import { makeWebFlowDriver } from './web-flow-driver.ts';

shareContract('Web', makeWebFlowDriver, { privatePlaces: false });
eraseContract('Web', makeWebFlowDriver, { members: false });
feedbackContract('Web', makeWebFlowDriver, { members: false });
settingsContract('Web', makeWebFlowDriver, { members: false });
commandsContract('Web', makeWebFlowDriver);
