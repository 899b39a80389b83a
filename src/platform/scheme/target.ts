/** The deep-link scheme (decisions.md: `{app_scheme}`). */
export const SCHEME = 'sluice';

/** Who gets `sluice://` links: the user's home and environment, and the command the OS is to run. */
export type SchemeTarget = {
  home: string;
  env: NodeJS.ProcessEnv;
  /** The program that runs sluice and its first arguments: the absolute node and script paths. */
  sluice: string[];
  /** The support directory whose application the links go to (always named, so no environment decides it). */
  dataDir: string;
};

/** One thing install or uninstall does; plain data, so tests compare it exactly. */
export type Step =
  | { kind: 'write'; path: string; content: string }
  | { kind: 'remove'; path: string }
  /** `ifMissing`: said instead of failing when the program is not installed. */
  | { kind: 'run'; command: string; args: string[]; ifMissing?: string }
  | { kind: 'note'; text: string };

export type RunResult = { status: number | null; stdout: string; stderr: string; missing: boolean };

/** What registration reads and changes on the machine; tests pass a recording one. */
export type SchemeHost = {
  readFile(path: string): string | undefined;
  exists(path: string): boolean;
  writeFile(path: string, content: string): void;
  remove(path: string): void;
  /** Runs a program with an argument array, never through a shell. */
  run(command: string, args: string[]): RunResult;
};

export type SchemeRegistrar = {
  install(target: SchemeTarget): Step[];
  uninstall(target: SchemeTarget, host: SchemeHost): Step[];
  /** True when what `install(target)` would make is in place, so the OS hands links to that target. */
  isInstalled(target: SchemeTarget, host: SchemeHost): boolean;
};

/** The arguments the OS runs for a link, the link itself last (after `--`, so it is never an option). */
export const handlerArgs = (target: SchemeTarget): string[] => [...target.sluice, 'open-url', '--data-dir', target.dataDir, '--'];
