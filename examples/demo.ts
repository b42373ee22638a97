import { styleText } from 'node:util';
import { consoleTraceLegend } from '@recourse/core';
import { runExtractExample } from './ai-sdk/extract.js';
import { runGithubExample } from './ai-sdk/github.js';
import { runMergeExample } from './ai-sdk/merge.js';
import { runRefundExample } from './ai-sdk/refund.js';
import { runOpenAIGithubExample } from './openai/github.js';
import { runOpenAIRefundExample } from './openai/refund.js';
import { runOtelExample } from './otel/trace.js';

const all = [
  ['refund: the response is lost after the refund lands', runRefundExample],
  ['github: a 403, then two bypass attempts', runGithubExample],
  ['extract: a validation failure repaired twice, then poison', runExtractExample],
  ['merge: 412 branch is behind → re-observe → merge', runMergeExample],
  ['refund through the OpenAI SDK (Responses API)', runOpenAIRefundExample],
  ['github through the OpenAI SDK (Chat Completions)', runOpenAIGithubExample],
  ['otel: the OpenTelemetry trace of two runs (a retry, a reconciled write)', runOtelExample],
] as const;

// `./run.sh demo github` runs the examples whose title starts with a given word.
const wanted = process.argv.slice(2).filter((arg) => arg !== '--');
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
