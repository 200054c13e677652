import { approvalContract } from './approval-contract.ts';
import { makeWebApprovalDriver } from './web-approval-driver.ts';

approvalContract('Web', makeWebApprovalDriver, { others: false, channels: false, groups: false });
