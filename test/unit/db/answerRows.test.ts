import { describe, expect, it } from 'vitest';
import { RESULTS } from '../../../src/core/contract.js';
import { answerRows } from '../../../src/db/results/answerRows.js';
import { rowText } from '../../../src/db/results/valueText.js';

const result = (rows: unknown[][]) => ({ columns: [{ name: 'a', type: 'text' }], rows, truncated: false, rowsAffected: 0 });

describe('answerRows', () => {
  it('serialises rows over many batches into the JSON and the escaped text lines of one pass', async () => {
    // About 4 MiB of JSON: some 16 batches; values JSON and the text escape (quotes, tabs, line breaks, NULL).
    const rows = Array.from({ length: 4_000 }, (_, i) => [i, `x"\t\n${'é'.repeat(1_000)}`, i % 3 === 0 ? null : 'NULL', { k: [i] }]);
    // The turns the loop took while they were serialised: a batch each.
    let turns = 0;
    let serialising = true;
    const tick = () => {
      turns += 1;
      if (serialising) setImmediate(tick);
    };
    setImmediate(tick);
    const answer = await answerRows(result(rows));
    serialising = false;
    expect(answer.rows.text).toBe(JSON.stringify(rows));
    expect(answer.rows.lines).toBe(JSON.stringify(rows.map(rowText).join('\n')).slice(1, -1));
    expect(answer.rows.length).toBe(4_000);
    expect(turns).toBeGreaterThan(JSON.stringify(rows).length / RESULTS.answerBatchChars - 2);
  });

  it('no rows: empty JSON and no lines', async () => {
    const answer = await answerRows(result([]));
    expect(answer.rows.text).toBe('[]');
    expect(answer.rows.lines).toBe('');
    expect(answer.rows.length).toBe(0);
  });
});
