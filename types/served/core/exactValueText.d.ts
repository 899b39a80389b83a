// The console serves src/core/shared at /core/ (consoleServer.ts, STATIC_DIRS): this file stands there
// for tsconfig.browser.json's rootDirs, so that the pages' imports of /core/exactValueText.js are type-checked.
export * from '../../../src/core/shared/exactValueText.js';
