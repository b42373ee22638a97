// The fixture server over stdio: `node --import tsx fixture-stdio.ts`.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createFixtureServer, createFixtureState } from './fixture-server.js';

await createFixtureServer(createFixtureState()).connect(new StdioServerTransport());
