import { defineConfig, mergeConfig } from 'vitest/config';
import root from '../../vitest.config.js';

// ai@5 and ai@6 import @opentelemetry/api. With the root config's `module` resolve
// condition, an externalised import resolves to its ESM build, whose extensionless
// relative imports Node cannot load; inlining lets Vite resolve them.
export default mergeConfig(
  root,
  defineConfig({
    test: { server: { deps: { inline: [/@recourse\//, /@opentelemetry\/api/, /\/ai@[56]\./] } } },
  }),
);
