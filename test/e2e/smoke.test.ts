import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, startTestApp, type TestApp } from '../helpers/testApp.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.dispose());

describe('smoke', () => {
  it('lists the demo connection', async () => {
    const res = await callTool(app, 'list_connections', {});
    expect(res.status).toBe(200);
    expect(res.json.result.structuredContent.connections[0].id).toBe('demo');
  });
});
