import { homedir, userInfo } from 'node:os';

/** Who runs Sluice and where their folders are, as each operating system tells it. */
export type CurrentUser = {
  home: string;
  /** Windows' roaming application data (`%APPDATA%`). */
  appData?: string;
  xdgConfigHome?: string;
  /** The numeric user id (not on Windows). */
  uid?: number;
  /** `DOMAIN\user` on Windows. */
  windowsUser?: string;
};

export type CurrentUserSource = {
  platform?: NodeJS.Platform;
  env?: NodeJS.ProcessEnv;
  home?: () => string;
  uid?: () => number;
};

export function currentUser(source: CurrentUserSource = {}): CurrentUser {
  const platform = source.platform ?? process.platform;
  const env = source.env ?? process.env;
  const user: CurrentUser = { home: (source.home ?? homedir)() };
  if (env.XDG_CONFIG_HOME) user.xdgConfigHome = env.XDG_CONFIG_HOME;
  if (platform !== 'win32') {
    user.uid = (source.uid ?? (() => userInfo().uid))();
    return user;
  }
  if (env.APPDATA) user.appData = env.APPDATA;
  if (env.USERNAME) user.windowsUser = env.USERDOMAIN ? `${env.USERDOMAIN}\\${env.USERNAME}` : env.USERNAME;
  return user;
}
