import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import engineModules from './eslint/engineModules.js';
import forbiddenImports from './eslint/forbiddenImports.js';
import layers from './eslint/layers.js';

const sluice = { rules: { ...layers.rules, ...forbiddenImports.rules, ...engineModules.rules } };

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', Buffer: 'readonly', console: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      eqeqeq: ['error', 'always'],
      'no-console': 'error',
      'prefer-const': 'error',
    },
  },
  {
    files: ['src/**/*.ts', 'src/**/*.js', 'machines/**/*.ts'],
    ignores: ['src/console/public/**'],
    plugins: { sluice },
    rules: { 'sluice/layers': 'error', 'sluice/sql-without-io': 'error', 'sluice/driver-failures-only': 'error', 'sluice/engine-modules': 'error' },
  },
  {
    // Functions a reader can hold (issue 28): a longer one is split into named steps, or carries
    // `// eslint-disable-next-line max-lines-per-function -- <why its length is the clearest form>`.
    files: ['src/**/*.ts', 'src/**/*.js'],
    rules: { 'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true }] },
  },
  {
    files: ['test/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-console': 'off',
    },
  },
  {
    // The console's and the inspector's pages: plain scripts that run in the browser.
    files: ['src/console/public/**', 'inspector/**'],
    languageOptions: { globals: globals.browser },
    rules: { 'no-console': 'off' },
  },
  {
    // The benchmark and the package check: Node scripts that print their figures.
    files: ['bench/**', 'scripts/*.mjs'],
    languageOptions: { globals: globals.node },
    rules: { 'no-console': 'off' },
  },
);
