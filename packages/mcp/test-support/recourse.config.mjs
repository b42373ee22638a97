// A proxy config as a user writes one: policies by tool name, functions allowed.
import { shellResources, urlResource } from '@recourse/mcp';

export default {
  runId: 'from-config',
  defaultPolicy: { timeoutMs: 5000 },
  policies: {
    get_repo: { resource: (input) => urlResource(`https://github.com/${input.repo}`) },
    shell: { resource: (input) => shellResources(input.command) },
  },
};
