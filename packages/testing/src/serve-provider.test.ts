import { expect, it } from 'vitest';
import { createScriptedProvider, serveProvider, text } from './index.js';

it('serveProvider answers over real HTTP from the script, without intercepting fetch', async () => {
  const provider = createScriptedProvider({ script: [text('hello')] });
  const { baseURL, server } = await serveProvider(provider);
  try {
    expect(baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const response = await fetch(`${baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
    });
    const body = (await response.json()) as { choices: { message: { content: string } }[] };
    expect(body.choices[0]?.message.content).toBe('hello');
    expect(provider.requests).toHaveLength(1);
    const missing = await fetch(`${baseURL}/nothing-here`, { method: 'POST' });
    expect(missing.status).toBe(404);
  } finally {
    server.close();
  }
});
