/**
 * PostgreSQL's EXPLAIN options against PostgreSQL's own parser (issue 29, item 5). The classifier reads
 * `EXPLAIN ( … )` with Sluice's lexer and lets a statement under it through as a read only when every
 * ANALYZE in the list is false, off or 0. Here libpg-query 18 (PostgreSQL's own parser, the one Sluice
 * checks writes with) parses generated option lists, and what the server would do is worked out from its
 * tree as PostgreSQL's `defGetBoolean` does: no value is true, the integers 0 and 1, the strings true,
 * false, on and off in any case, anything else an error; the last ANALYZE wins. Whenever PostgreSQL
 * would analyze (run) the wrapped DELETE, the classifier must not say read; whenever it would only plan
 * a list of plain options, the classifier says read.
 */
import fc from 'fast-check';
import { parse } from 'libpg-query';
import { afterAll, describe, expect, it } from 'vitest';
import { classifyStatement } from '../../src/sql/classify.js';
import { CaseTally, fuzzParameters, share, timeoutFor } from './fuzzBudget.js';

const RUNS = share(1);
const tally = new CaseTally('EXPLAIN options');
afterAll(() => tally.print());

type DefElem = { defname: string; arg?: { Integer?: { ival?: number }; String?: { sval: string }; Float?: unknown } };
type Verdict = 'analyzes' | 'plans' | 'refused';

/** What PostgreSQL does with the statement under EXPLAIN, from its parse tree. */
function serverVerdict(options: DefElem[]): Verdict {
  let analyze = false;
  for (const { defname, arg } of options) {
    if (defname !== 'analyze') continue;
    if (arg === undefined) analyze = true;
    else if (arg.Integer !== undefined) {
      const value = arg.Integer.ival ?? 0;
      if (value !== 0 && value !== 1) return 'refused';
      analyze = value === 1;
    } else if (arg.String !== undefined) {
      const value = arg.String.sval.toLowerCase();
      if (!['true', 'false', 'on', 'off'].includes(value)) return 'refused';
      analyze = value === 'true' || value === 'on';
    } else return 'refused';
  }
  return analyze ? 'analyzes' : 'plans';
}

const NAMES = ['ANALYZE', 'analyze', 'Analyse', '"analyze"', '"ANALYZE"', 'COSTS', 'VERBOSE', 'BUFFERS', 'SETTINGS', 'SUMMARY', 'FORMAT', 'GENERIC_PLAN', 'WAL'];
const VALUES = ['', 'true', 'false', 'TRUE', 'FALSE', 'on', 'off', 'OFF', '0', '1', '2', '00', '-0', '0.0', "'off'", "'ON'", "'false'", '"off"', '"True"', "E'off'", "'0'", 'no', 'yes', 'json', 'analyze', '$$off$$'];
const option = fc.record({ name: fc.constantFrom(...NAMES), value: fc.constantFrom(...VALUES) }).map(({ name, value }) => (value ? `${name} ${value}` : name));
const list = fc.array(option, { minLength: 1, maxLength: 4 });

/** The spellings of false the classifier reads (others it counts as running: conservative, not wrong). */
const OFF = new Set(['false', 'FALSE', 'off', 'OFF', '0', "'off'", "'false'", '"off"']);
/**
 * An option the classifier promises to read: not an ANALYZE, or an ANALYZE given one of those; a value of
 * one token (a signed number is two) that does not name ANALYZE.
 */
const readAsOff = (option: string) => {
  const [name = '', value = ''] = option.split(' ');
  return !value.startsWith('-') && !/analy[sz]e/i.test(value) && (!/^"?analy[sz]e"?$/i.test(name) || OFF.has(value));
};

describe('EXPLAIN ( … ) on PostgreSQL, against its own parser', () => {
  it(
    'never a read when PostgreSQL would run the statement; a read when it only plans plain options',
    async () => {
      const property = tally.count('option lists', async (options: string[]) => {
        const sql = `EXPLAIN (${options.join(', ')}) DELETE FROM sluice_canary WHERE id = 1`;
        let tree: DefElem[];
        try {
          const [statement] = (await parse(sql)).stmts ?? [];
          tree = ((statement?.stmt as { ExplainStmt: { options: { DefElem: DefElem }[] } }).ExplainStmt.options ?? []).map((o) => o.DefElem);
        } catch {
          tally.outcome('verdicts', 'does not parse');
          return;
        }
        const verdict = serverVerdict(tree);
        const kind = classifyStatement(sql, 'postgres').kind;
        tally.outcome('verdicts', `${verdict} → ${kind}`);
        if (verdict === 'analyzes') expect(kind, sql).not.toBe('read');
        if (verdict === 'plans' && options.every(readAsOff)) expect(kind, sql).toBe('read');
      });
      await fc.assert(fc.asyncProperty(list, property), fuzzParameters(RUNS));
      const outcomes = tally.outcomesOf('verdicts');
      expect(outcomes.get('analyzes → write') ?? 0).toBeGreaterThan(0);
      expect(outcomes.get('plans → read') ?? 0).toBeGreaterThan(0);
    },
    timeoutFor(RUNS, 2),
  );
});
