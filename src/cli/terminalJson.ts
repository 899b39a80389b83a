import { jsonWithVisibleEscapes } from '../core/shared/visibleText.js';

/** `--json` output: indented JSON with every invisible character escaped (core/shared/visibleText.js). */
export const terminalJson = (value: unknown): string => `${jsonWithVisibleEscapes(JSON.stringify(value, null, 2))}\n`;
