import { commandsContract } from './commands-contract.ts';
import { eraseContract } from './erase-contract.ts';
import { feedbackContract } from './feedback-contract.ts';
import { shareContract, splitShareContract } from './interaction-contract.ts';
import { settingsContract } from './settings-contract.ts';
import { makeSlackFlowDriver } from './slack-flow-driver.ts';

shareContract('Slack', makeSlackFlowDriver);
splitShareContract('Slack', makeSlackFlowDriver);
eraseContract('Slack', makeSlackFlowDriver);
feedbackContract('Slack', makeSlackFlowDriver);
settingsContract('Slack', makeSlackFlowDriver);
commandsContract('Slack', makeSlackFlowDriver);
