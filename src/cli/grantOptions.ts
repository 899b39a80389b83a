import { type Grant, parseConnectionList, parseExpiry, parseToolList } from '../auth/grant.js';
import { TOOL_NAME } from '../core/nameCharacters.js';
import { permissionLevels, type PermissionLevel } from '../auth/levels.js';
import { UsageError } from './usageError.js';

/** The grant options of `tokens create` and `approve`: each one given, read and checked. */
export type GrantOptionText = { level?: string | undefined; connections?: string | undefined; expires?: string | undefined; tools?: string | undefined };

/** `--level`, `--connections`, `--expires` and `--tools` as a grant; a wrong one is a usage error naming it. */
export function grantFromOptions(values: GrantOptionText): Partial<Grant> {
  const grant: Partial<Grant> = {};
  if (values.level !== undefined) {
    if (!permissionLevels.includes(values.level as never)) {
      throw new UsageError(`--level must be one of ${permissionLevels.join(', ')}, not "${values.level}"`);
    }
    grant.level = values.level as PermissionLevel;
  }
  if (values.connections !== undefined) {
    const connections = parseConnectionList(values.connections);
    if (!connections) {
      throw new UsageError(`--connections must be "all" or connection ids separated by commas, not "${values.connections}"`);
    }
    grant.connections = connections;
  }
  if (values.expires !== undefined) {
    const days = parseExpiry(values.expires);
    if (days === undefined) throw new UsageError(`--expires must be never, 1, 7, 30 or 90, not "${values.expires}"`);
    grant.expiresInDays = days;
  }
  if (values.tools !== undefined) {
    const tools = parseToolList(values.tools);
    if (!tools || tools.some((name) => !TOOL_NAME.test(name))) throw new UsageError(`--tools must be custom tool names separated by commas, not "${values.tools}"`);
    grant.tools = tools;
  }
  return grant;
}
