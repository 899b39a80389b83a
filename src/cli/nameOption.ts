import { nameRefusal } from '../core/nameCharacters.js';
import { UsageError } from './usageError.js';

/** `--name` as given; one holding a character no name may hold is a usage error saying so. */
export function checkedNameOption<Name extends string | undefined>(name: Name): Name {
  const refused = name === undefined ? undefined : nameRefusal('--name', name);
  if (refused) throw new UsageError(refused);
  return name;
}
