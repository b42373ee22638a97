#!/usr/bin/env node
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { InvalidOptionsError } from '@recourse/core';
import { helpText, parseCliArgs, UsageError } from './cli-args.js';
import { createRecoveryProxy } from './create-proxy.js';
import { loadConfig } from './load-config.js';
import { openLedger } from './open-ledger.js';

// stdout belongs to the MCP client (stdio): everything the proxy says goes to stderr.
async function main(argv: readonly string[]): Promise<void> {
  const request = parseCliArgs(argv);
  if (request.help) {
    process.stdout.write(helpText);
    return;
  }
  const { options } = request;
  const cwd = process.cwd();
  const config = options.config === undefined ? {} : await loadConfig(options.config, cwd);
  const ledger = await openLedger(options.ledger, cwd);
  const runId = options.runId ?? config.runId;
  const proxy = createRecoveryProxy({
    ...config,
    ...(runId === undefined ? {} : { runId }),
    upstream: options.upstream,
    ledger,
    trace: options.trace,
  });
  const shutdown = async () => {
    await proxy.close();
    await ledger.close();
  };
  if (options.listen) {
    const listener = await proxy.listen(options.listen);
    process.stderr.write(`recourse-mcp: serving ${listener.url}\n`);
  } else {
    const session = await proxy.connect(new StdioServerTransport());
    // The client closed stdin: the session, its upstream and the ledger end with it.
    process.stdin.once('end', () => void shutdown().finally(() => process.exit(0)));
    void session;
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void shutdown().finally(() => process.exit(0)));
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const usage = error instanceof UsageError || InvalidOptionsError.isInstance(error);
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`recourse-mcp: ${message}\n${usage ? 'See recourse-mcp --help.\n' : ''}`);
  process.exit(usage ? 2 : 1);
});
