export {
  type AdapterContractDriver,
  type AdapterContractRun,
  type ContractCall,
  type ContractPlay,
  type ContractTool,
  describeAdapterContract,
} from './adapter-contract.js';
export {
  type CheckResultsDriver,
  type CheckResultsPlan,
  type CheckResultsRun,
  type CiReport,
  checkResultsOptions,
  describeCheckResults,
} from './check-results-suite.js';
export { createFakeClock, type FakeClock } from './fake-clock.js';
export {
  describeHostileErrorText,
  type HostileErrorAttack,
  type HostileErrorTextDriver,
  type HostileErrorTextRun,
  plainErrorBody,
} from './hostile-error-text-suite.js';
export {
  describeHostileValues,
  type HostileValuesDriver,
  type HostileValuesRun,
} from './hostile-values-suite.js';
export {
  contractLeaseMs,
  contractRetentionMs,
  contractStartTime,
  describeLedgerContract,
  type LedgerContractHarness,
  type LedgerContractOptions,
  type LedgerFactory,
  type LedgerFactoryContext,
} from './ledger-contract.js';
export { expectAcquired, expectLeaseLost } from './ledger-contract-expect.js';
export {
  describePlanVersions,
  type PlanCall,
  type PlanTurn,
  type PlanVersionsDriver,
  type PlanVersionsRun,
} from './plan-versions-suite.js';
export { startTcpProxy, type TcpProxy } from './tcp-proxy.js';
export {
  describeToolSpans,
  type FinishedSpan,
  type SpanTool,
  spanTokens,
  type ToolSpansDriver,
} from './tool-spans-suite.js';
export {
  describeTurnCalls,
  type TurnCall,
  type TurnCallsDriver,
  type TurnCallsRun,
} from './turn-calls-suite.js';
