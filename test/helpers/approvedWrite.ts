import { expect } from 'vitest';
import type { ActivityRow } from '../../src/activity/activityLog.js';
import type { ConsentDialog } from '../../src/runtime/consentDialogs.js';
import { callTool, type TestApp } from './testApp.js';

export type ApprovedWrite = { dialog: ConsentDialog; row: ActivityRow; detail: Record<string, unknown> };

/**
 * Runs `sql` through execute_query on connection `db` as the caller of `headers`, approves its dialog in
 * Sluice, and answers the dialog, the write's activity row and its detail; `dialogWithinMs` is how long
 * the dialog may take to come (the exact effect is worked out first).
 */
export async function approvedWrite(app: TestApp, headers: Record<string, string>, sql: string, dialogWithinMs = 10_000): Promise<ApprovedWrite> {
  const before = app.activity.list({ limit: 1 })[0]?.seq ?? 0;
  let answered: unknown;
  const pending = callTool(app, 'execute_query', { connection_id: 'db', sql }, { headers }).then((res) => (answered = res.json));
  await expect.poll(() => answered ?? app.dialogs.list().length, { timeout: dialogWithinMs, interval: 20 }).toBe(1);
  const [dialog] = app.dialogs.list();
  expect(app.dialogs.answer(dialog!.id, 'approve')).toBe(true);
  expect(await pending).toMatchObject({ result: { isError: false } });
  const row = app.activity.list({ limit: 20 }).find((r) => r.seq > before && r.action === 'execute_query');
  expect(row?.outcome).toBe('success');
  return { dialog: dialog!, row: row!, detail: JSON.parse(row!.detail ?? '{}') as Record<string, unknown> };
}
