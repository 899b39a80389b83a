import { posix, win32 } from 'node:path';

export const CLIENT_IDS = ['claude-desktop', 'claude-code', 'cursor', 'vscode', 'windsurf'] as const;
export type ClientId = (typeof CLIENT_IDS)[number];

/** Where the user's folders are (from the environment; passed in tests). */
export type UserFolders = {
  home: string;
  /** Windows' roaming application data (`%APPDATA%`). */
  appData?: string;
  xdgConfigHome?: string;
};

export type ClientConfigFormat = {
  title: string;
  /** The object that maps server names to servers: VS Code's `servers`, everyone else's `mcpServers`. */
  serversKey: 'mcpServers' | 'servers';
  /** Whether a stdio server names its transport (`"type": "stdio"`). */
  typed: boolean;
  /** How the user checks that the client sees Sluice. */
  check: string;
};

export const CLIENT_FORMATS: Record<ClientId, ClientConfigFormat> = {
  'claude-desktop': {
    title: 'Claude Desktop',
    serversKey: 'mcpServers',
    typed: false,
    check: 'Quit and reopen Claude Desktop; Settings → Developer lists "sluice" as running.',
  },
  'claude-code': {
    title: 'Claude Code',
    serversKey: 'mcpServers',
    typed: true,
    check: 'Run `claude mcp list`: "sluice" shows as connected (in a session, /mcp shows it too).',
  },
  cursor: {
    title: 'Cursor',
    serversKey: 'mcpServers',
    typed: false,
    check: 'Open Cursor Settings → MCP (Tools & MCP): "sluice" is listed and switched on, with its tools.',
  },
  vscode: {
    title: 'VS Code',
    serversKey: 'servers',
    typed: true,
    check: 'Run "MCP: List Servers" from the Command Palette: "sluice" is there; start it and its tools appear in agent mode.',
  },
  windsurf: {
    title: 'Windsurf',
    serversKey: 'mcpServers',
    typed: false,
    check: 'Open Windsurf Settings → Cascade → MCP servers and refresh: "sluice" is listed with its tools.',
  },
};

/**
 * Each client's user-wide MCP configuration file on `platform`. Claude Desktop has no Linux build of
 * Anthropic's; the Linux path is the one its community builds read.
 */
export function clientConfigPath(client: ClientId, platform: NodeJS.Platform, folders: UserFolders): string {
  const path = platform === 'win32' ? win32 : posix;
  const { home } = folders;
  const appData = folders.appData || path.join(home, 'AppData', 'Roaming');
  const xdgConfig = folders.xdgConfigHome || path.join(home, '.config');
  // The folder where Electron apps (Claude Desktop, VS Code) keep their per-user data.
  const appSupport = platform === 'darwin' ? path.join(home, 'Library', 'Application Support') : platform === 'win32' ? appData : xdgConfig;
  switch (client) {
    case 'claude-desktop':
      return path.join(appSupport, 'Claude', 'claude_desktop_config.json');
    case 'claude-code':
      return path.join(home, '.claude.json');
    case 'cursor':
      return path.join(home, '.cursor', 'mcp.json');
    case 'vscode':
      return path.join(appSupport, 'Code', 'User', 'mcp.json');
    case 'windsurf':
      return path.join(home, '.codeium', 'windsurf', 'mcp_config.json');
  }
}

export function isClientId(name: string): name is ClientId {
  return (CLIENT_IDS as readonly string[]).includes(name);
}
