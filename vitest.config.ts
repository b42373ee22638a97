import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

// Workspace packages resolve to their TypeScript sources through the `recourse-source` export
// condition (a project-specific name: some dependencies ship a generic `source` condition
// pointing at files they do not publish), so tests run without a build step.
// 'module' is left out: packages such as @opentelemetry/api point it at an ESM build with
// extensionless imports that Node cannot load; their `default` build works everywhere.
const conditions = ['recourse-source', ...defaultServerConditions.filter((c) => c !== 'module')];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['recourse-source'] } },
  test: {
    include: [
      'packages/*/src/**/*.test.ts',
      'examples/**/*.test.ts',
      'tests/**/*.test.ts',
      'bench/**/*.test.ts',
    ],
    // Type tests only; source type errors are `pnpm typecheck`'s job.
    typecheck: {
      enabled: true,
      include: ['packages/*/src/**/*.test-d.ts'],
      tsconfig: './tsconfig.json',
      ignoreSourceErrors: true,
    },
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // @opentelemetry/api's ESM build (imported by ai@5/ai@6 and by the OpenTelemetry SDK)
    // has extensionless relative imports that only Vite's resolver can load.
    server: { deps: { inline: [/@recourse\//, /@opentelemetry\//, /\/ai@[56]\./] } },
  },
});
