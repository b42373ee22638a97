import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { scriptedProviderServer } from './provider-server-hooks.js';
import { text } from './script-steps.js';

describe('scriptedProviderServer', () => {
  it('serves the provider between start and stop, and names the missing start', async () => {
    const scripted = scriptedProviderServer({ script: [text('first'), text('second')] });
    expect(() => scripted.server).toThrow(/start\(\) first/);
    scripted.start();
    try {
      const client = new OpenAI({ apiKey: 'test', baseURL: scripted.provider.baseURL });
      const ask = async () =>
        (await client.chat.completions.create({ model: 'm', messages: [] })).choices[0]?.message
          .content;
      expect(await ask()).toBe('first');
      scripted.reset([text('again')]);
      expect(await ask()).toBe('again');
    } finally {
      scripted.stop();
    }
    expect(() => scripted.server).toThrow(/start\(\) first/);
  });
});
