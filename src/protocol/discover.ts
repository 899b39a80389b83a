import { META_SERVER_INFO } from './era.js';
import { INSTRUCTIONS, SERVER_NAME, SERVER_TITLE, SERVER_VERSION, SERVER_WEBSITE } from './serverInfo.js';
import { SUPPORTED_VERSIONS } from './versions.js';

/** The `server/discover` result; `resultType` and cache hints are added by the envelope like any other. */
export function discoverResult(): Record<string, unknown> {
  return {
    supportedVersions: [...SUPPORTED_VERSIONS],
    capabilities: {
      tools: { listChanged: false },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: false },
      completions: {},
      extensions: {},
    },
    instructions: INSTRUCTIONS,
    _meta: {
      [META_SERVER_INFO]: {
        name: SERVER_NAME,
        title: SERVER_TITLE,
        version: SERVER_VERSION,
        websiteUrl: SERVER_WEBSITE,
      },
    },
  };
}
