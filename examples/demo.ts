import { styleText } from 'node:util';
import { consoleTraceLegend } from '@recourse/core';
import { runExtractExample } from './ai-sdk/extract.js';
import { runFlakyTestExample, runFlakyTestReplanExample } from './ai-sdk/flaky-test.js';
import { runGeocodeExample } from './ai-sdk/geocode.js';
import { runGithubExample } from './ai-sdk/github.js';
import { runIncidentExample } from './ai-sdk/incident.js';
import { runMergeExample } from './ai-sdk/merge.js';
import { runObservabilityExample } from './ai-sdk/observability.js';
import { runParserFallbackExample } from './ai-sdk/parser-fallback.js';
import { runRefundExample } from './ai-sdk/refund.js';
import { runSagaExample } from './ai-sdk/saga.js';
import {
  runLangChainGithubExample,
  runLangChainRefundExample,
  runLangChainRepairExample,
} from './langchain/agents.js';
import { runMcpProxyExample } from './mcp/proxy.js';
import { runOpenAIChargeExample } from './openai/charge.js';
import { runOpenAIGithubExample } from './openai/github.js';
import { runOpenAIRefundExample } from './openai/refund.js';
import {
  runAgentsGithubExample,
  runAgentsRefundExample,
  runAgentsRepairExample,
} from './openai-agents/agents-sdk.js';
import { runOtelExample } from './otel/trace.js';

// `./run.sh demo github` runs the examples whose title starts with a given word;
// `--console` also prints the otel example's spans through the SDK's ConsoleSpanExporter.
const args = process.argv.slice(2).filter((arg) => arg !== '--');
const consoleExporter = args.includes('--console');
const wanted = args.filter((arg) => !arg.startsWith('--'));

const all = [
  ['refund: the response is lost after the refund lands', runRefundExample],
  ['github: a 403, then two bypass attempts', runGithubExample],
  ['extract: a validation failure repaired twice, then poison', runExtractExample],
  ['merge: 412 branch is behind → re-observe → merge', runMergeExample],
  ['refund through the OpenAI SDK (Responses API)', runOpenAIRefundExample],
  ['github through the OpenAI SDK (Chat Completions)', runOpenAIGithubExample],
  ['agents refund: the OpenAI Agents SDK, the refund reconciled', runAgentsRefundExample],
  ['agents github: the OpenAI Agents SDK, a 403 blocks the shell bypass', runAgentsGithubExample],
  [
    'agents repair: the OpenAI Agents SDK, a 422 repaired through the model',
    runAgentsRepairExample,
  ],
  ['flaky: run test → FAIL, same signature ×3 → poison, the run stops', runFlakyTestExample],
  ['flaky, replanning: the same FAIL rejects the hypothesis → plan v2', runFlakyTestReplanExample],
  [
    'incident: an observation disproves the hypothesis → plan v1 invalidated → v2',
    runIncidentExample,
  ],
  [
    'observability: the API is down → a cached snapshot, marked PARTIAL_RESULT',
    runObservabilityExample,
  ],
  [
    'fallback parser: model A’s structured output invalid ×3 → a deterministic parser',
    runParserFallbackExample,
  ],
  ['saga: VM ✅, DNS ✅, inventory record ❌ → undone newest first', runSagaExample],
  ['geocode: the read is retried, the address post that timed out is not', runGeocodeExample],
  [
    'charge: 402 card declined → reconciled, not retried, quarantined (OpenAI SDK)',
    runOpenAIChargeExample,
  ],
  ['langchain refund: createAgent, the lost response reconciled', runLangChainRefundExample],
  ['langchain github: a 403 and an SSH clone in the same response', runLangChainGithubExample],
  ['langchain repair: a 422 fixed by the model (createAgent)', runLangChainRepairExample],
  [
    'mcp: recourse-mcp in front of server-everything and a write that times out after writing',
    () => runMcpProxyExample(),
  ],
  [
    'otel: the OpenTelemetry trace of two runs (a retry, a reconciled write)',
    () => runOtelExample(console.log, { console: consoleExporter }),
  ],
] as const;

const examples = wanted.length
  ? all.filter(([title]) => wanted.some((w) => title.startsWith(w)))
  : all;

const mode = process.env.OPENAI_API_KEY
  ? 'the real OpenAI API (OPENAI_API_KEY is set)'
  : 'a scripted provider over HTTP (offline; set OPENAI_API_KEY for the real API)';
console.log(styleText('dim', `recourse demo — models: ${mode}`, { stream: process.stdout }));
console.log(styleText('dim', `${consoleTraceLegend}\n`, { stream: process.stdout }));
for (const [title, run] of examples) {
  console.log(styleText(['bold', 'underline'], title, { stream: process.stdout }));
  await run();
  console.log();
}
