import path from 'node:path';
import { RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, it } from 'vitest';

RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.itOnly = it.only;

const root = path.resolve(import.meta.dirname, '../../..');

/** A file of this project, by its path from the root: where a rule under test thinks the code is. */
export const at = (file: string) => path.join(root, file);

/** A RuleTester running its cases as vitest tests; `typescript` parses them as TypeScript. */
export const ruleTester = ({ typescript = false } = {}) =>
  new RuleTester({ languageOptions: { ...(typescript ? { parser: tseslint.parser } : {}), ecmaVersion: 2022, sourceType: 'module' } });
