import { describe, expect, it } from 'vitest';
import { CLIENT_FORMATS, CLIENT_IDS, clientConfigPath } from '../../../src/platform/clientConfigPaths.js';

const LINUX = { home: '/home/ann' };
const MAC = { home: '/Users/ann' };
const WINDOWS = { home: 'C:\\Users\\ann', appData: 'C:\\Users\\ann\\AppData\\Roaming' };

describe('clientConfigPath: each client’s user-wide MCP file on each system', () => {
  it.each([
    ['claude-desktop', '/home/ann/.config/Claude/claude_desktop_config.json', '/Users/ann/Library/Application Support/Claude/claude_desktop_config.json', 'C:\\Users\\ann\\AppData\\Roaming\\Claude\\claude_desktop_config.json'],
    ['claude-code', '/home/ann/.claude.json', '/Users/ann/.claude.json', 'C:\\Users\\ann\\.claude.json'],
    ['cursor', '/home/ann/.cursor/mcp.json', '/Users/ann/.cursor/mcp.json', 'C:\\Users\\ann\\.cursor\\mcp.json'],
    ['vscode', '/home/ann/.config/Code/User/mcp.json', '/Users/ann/Library/Application Support/Code/User/mcp.json', 'C:\\Users\\ann\\AppData\\Roaming\\Code\\User\\mcp.json'],
    ['windsurf', '/home/ann/.codeium/windsurf/mcp_config.json', '/Users/ann/.codeium/windsurf/mcp_config.json', 'C:\\Users\\ann\\.codeium\\windsurf\\mcp_config.json'],
  ] as const)('%s', (client, linux, mac, windows) => {
    expect(clientConfigPath(client, 'linux', LINUX)).toBe(linux);
    expect(clientConfigPath(client, 'darwin', MAC)).toBe(mac);
    expect(clientConfigPath(client, 'win32', WINDOWS)).toBe(windows);
  });

  it('follows XDG_CONFIG_HOME on Linux, and finds %APPDATA% from the profile when it is unset', () => {
    expect(clientConfigPath('vscode', 'linux', { ...LINUX, xdgConfigHome: '/xdg' })).toBe('/xdg/Code/User/mcp.json');
    expect(clientConfigPath('claude-desktop', 'linux', { ...LINUX, xdgConfigHome: '/xdg' })).toBe('/xdg/Claude/claude_desktop_config.json');
    expect(clientConfigPath('claude-desktop', 'win32', { home: 'C:\\Users\\ann' })).toBe('C:\\Users\\ann\\AppData\\Roaming\\Claude\\claude_desktop_config.json');
  });

  it('puts VS Code’s servers under "servers" and everyone else’s under "mcpServers"', () => {
    expect(CLIENT_IDS.map((client) => [client, CLIENT_FORMATS[client].serversKey, CLIENT_FORMATS[client].typed])).toEqual([
      ['claude-desktop', 'mcpServers', false],
      ['claude-code', 'mcpServers', true],
      ['cursor', 'mcpServers', false],
      ['vscode', 'servers', true],
      ['windsurf', 'mcpServers', false],
    ]);
  });
});
