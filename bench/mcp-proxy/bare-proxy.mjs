// The baseline of the MCP proxy benchmark: a bare pass-through proxy on the same transports
// (the SDK's stdio server transport in, its stdio client transport out), every message
// forwarded as it is. What recourse-mcp adds is measured against this hop.
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const [command, ...args] = process.argv.slice(process.argv.indexOf('--') + 1);
const upstream = new StdioClientTransport({ command, args, stderr: 'inherit' });
const downstream = new StdioServerTransport();
upstream.onmessage = (message) => void downstream.send(message);
downstream.onmessage = (message) => void upstream.send(message);
upstream.onclose = () => process.exit(0);
process.stdin.once('end', () => void upstream.close());
await upstream.start();
await downstream.start();
