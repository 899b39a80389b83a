/**
 * The listeners that call `check(node, specifier, names)` for every module a file names: imports,
 * re-exports and `import()`. `names` are the bindings taken from it, or `'all'` (a namespace, `export *`,
 * `import()`).
 * @param {(node: import('estree').Node, specifier: string, names: string[] | 'all') => void} check
 * @returns {import('eslint').Rule.RuleListener}
 */
export function eachImport(check) {
  /**
   * @param {import('estree').Node | null | undefined} node
   * @param {string[] | 'all'} names
   */
  const run = (node, names) => {
    if (node?.type === 'Literal' && typeof node.value === 'string') check(node, node.value, names);
  };
  /** @param {import('estree').Identifier | import('estree').Literal} name */
  const nameOf = (name) => (name.type === 'Identifier' ? name.name : String(name.value));
  return {
    ImportDeclaration: (node) =>
      run(
        node.source,
        node.specifiers.some((s) => s.type === 'ImportNamespaceSpecifier')
          ? 'all'
          : node.specifiers.map((s) => (s.type === 'ImportSpecifier' ? nameOf(s.imported) : 'default')),
      ),
    ExportNamedDeclaration: (node) => run(node.source, node.specifiers.map((s) => nameOf(s.local))),
    ExportAllDeclaration: (node) => run(node.source, 'all'),
    ImportExpression: (node) => run(node.source, 'all'),
  };
}
