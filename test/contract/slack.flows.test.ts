import { shareContract, splitShareContract } from './interaction-contract.ts';
import { makeSlackFlowDriver } from './slack-flow-driver.ts';

shareContract('Slack', makeSlackFlowDriver);
splitShareContract('Slack', makeSlackFlowDriver);
