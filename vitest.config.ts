import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

// Workspace packages resolve to their TypeScript sources through the `recourse-source` export
// condition (a project-specific name: some dependencies ship a generic `source` condition
// pointing at files they do not publish), so tests run without a build step. Without the
// bundlers' `module` condition, dependencies resolve to the files Node itself loads: the
// AWS SDK's and @opentelemetry/api's `module` builds have extensionless imports that Node
// cannot run.
const conditions = [
  'recourse-source',
  ...defaultServerConditions.filter((condition) => condition !== 'module'),
];

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
