import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** The README's client configurations are copied as they are: each must parse and launch or reach Sluice. */

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const section = readme.slice(readme.indexOf('## Using Sluice from AI clients'), readme.indexOf('## Tests'));
const jsonBlocks = [...section.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => match[1] as string);

describe('README client configurations', () => {
  it('has the four stdio configurations and the HTTP ones, all valid JSON', () => {
    expect(jsonBlocks).toHaveLength(5);
    for (const block of jsonBlocks) expect(() => JSON.parse(block)).not.toThrow();
  });

  it('launches `sluice bridge` or names the loopback /mcp URL, for the server called sluice', () => {
    for (const block of jsonBlocks) {
      const config = JSON.parse(block);
      const server = (config.mcpServers ?? config.servers).sluice;
      if (server.url) {
        expect(server.url).toBe('http://127.0.0.1:38621/mcp');
        expect(server.headers.Authorization).toMatch(/^Bearer /);
      } else {
        expect([server.command, ...server.args]).toEqual(['sluice', 'bridge']);
      }
    }
  });

  it('gives Claude Code both ways in one line each', () => {
    expect(section).toContain('claude mcp add sluice -- sluice bridge');
    expect(section).toContain('claude mcp add --transport http sluice http://127.0.0.1:38621/mcp --header "Authorization: Bearer sl_…"');
  });
});
