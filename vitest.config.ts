import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

// Workspace packages resolve to their TypeScript sources through the `recourse-source` export
// condition (a project-specific name: some dependencies ship a generic `source` condition
// pointing at files they do not publish), so tests run without a build step.
const conditions = ['recourse-source', ...defaultServerConditions];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['recourse-source'] } },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'examples/**/*.test.ts', 'tests/**/*.test.ts', 'bench/**/*.test.ts'],
    typecheck: { enabled: true, include: ['packages/*/src/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
    testTimeout: 20_000,
    hookTimeout: 30_000,
    server: { deps: { inline: [/@recourse\//] } },
  },
});
