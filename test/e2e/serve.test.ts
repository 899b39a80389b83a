import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exited, runSluice, spawnServe, waitForHandshake } from '../helpers/cli.js';
import { callTool, mcp, mirroredHeaders, modernMeta, readUntil, sseFrames } from '../helpers/testApp.js';

const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-serve-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('sluice serve', () => {
  it('creates the demo on first run, writes the handshake (0600) once listening, and removes it on SIGTERM', async () => {
    const dataDir = freshDir();
    const created = runSluice(['tokens', 'create', '--name', 'smoke', '--data-dir', dataDir]);
    expect(created.status).toBe(0);
    const token = created.stdout.trim();
    expect(token).toMatch(/^sl_[A-Za-z0-9_-]{43}$/);
    const serve = spawnServe(['--port', '0', '--data-dir', dataDir]);
    const handshake = await waitForHandshake(dataDir);
    expect(handshake).toEqual({
      port: expect.any(Number),
      pid: serve.child.pid,
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      bridgeToken: expect.stringMatching(/^slb_[A-Za-z0-9_-]{43}$/),
      consolePort: expect.any(Number),
    });
    expect(statSync(join(dataDir, 'mcp-handshake.json')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, 'config.json')).mode & 0o777).toBe(0o600);
    const config = JSON.parse(readFileSync(join(dataDir, 'config.json'), 'utf8'));
    expect(config.connections[0]).toMatchObject({
      id: 'demo',
      engine: 'sqlite',
      path: join(dataDir, 'demo.sqlite'),
    });

    const url = `http://127.0.0.1:${handshake.port}/mcp`;
    const refused = await callTool({ url }, 'list_connections', {});
    expect([refused.status, refused.json.error.code]).toEqual([401, -33009]);
    const res = await callTool({ url }, 'list_connections', {}, { headers: { authorization: `Bearer ${token}` } });
    expect(res.json.result.structuredContent.connections[0].id).toBe('demo');
    await expect.poll(serve.stdout).toContain(url);

    serve.child.kill('SIGTERM');
    expect(await exited(serve.child)).toEqual({ code: 0, signal: null });
    expect(existsSync(join(dataDir, 'mcp-handshake.json'))).toBe(false);
  });

  it('SIGINT ends an in-flight request with -33000 and stops cleanly', async () => {
    const dataDir = freshDir();
    const serve = spawnServe(['--port', '0', '--no-auth'], { SLUICE_HOME: dataDir });
    const { port } = await waitForHandshake(dataDir);
    const params = {
      name: 'execute_query',
      arguments: {
        connection_id: 'demo',
        sql: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 500000000) SELECT count(*) FROM c',
      },
    };
    const response = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      headers: mirroredHeaders('tools/call', params),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { ...params, _meta: modernMeta({ progressToken: 't' }) },
      }),
    });
    // The 0.3 progress frame says the statement is running; then stop the server.
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = await readUntil(reader, '"progress":0.3');
    serve.child.kill('SIGINT');
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += chunk.value;
    const last = sseFrames(text).data.at(-1);
    expect(last).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -33000 } });
    expect(await exited(serve.child)).toEqual({ code: 0, signal: null });
    expect(existsSync(join(dataDir, 'mcp-handshake.json'))).toBe(false);
  });

  it('--log-requests writes one JSON line per request with the trace context unchanged, never the statement', async () => {
    const dataDir = freshDir();
    const serve = spawnServe(['--port', '0', '--data-dir', dataDir, '--log-requests', '--no-auth']);
    const { port } = await waitForHandshake(dataDir);
    const trace = {
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      tracestate: 'vendor=opaque,other=x',
      baggage: 'userId=alice,tenant=a%20b',
    };
    await callTool(
      { url: `http://127.0.0.1:${port}/mcp` },
      'execute_query',
      { connection_id: 'demo', sql: "SELECT 'secret-marker'" },
      {
        id: 'logged',
        extraMeta: { ...trace, 'io.modelcontextprotocol/clientInfo': { name: 'probe', version: '1' } },
      },
    );
    serve.child.kill('SIGTERM');
    await exited(serve.child);
    const lines = serve
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('{'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toEqual({
      time: expect.any(String),
      id: 'logged',
      method: 'tools/call',
      principal: 'anonymous:127.0.0.1',
      client: 'probe',
      status: 200,
      ms: expect.any(Number),
      ...trace,
    });
    expect(serve.stderr()).not.toContain('secret-marker');
  });

  it('keeps the saved configuration on later runs', async () => {
    const dataDir = freshDir();
    for (let run = 0; run < 2; run++) {
      const serve = spawnServe(['--port', '0', '--data-dir', dataDir]);
      await waitForHandshake(dataDir);
      serve.child.kill('SIGTERM');
      await exited(serve.child);
    }
    const config = JSON.parse(readFileSync(join(dataDir, 'config.json'), 'utf8'));
    expect(config.connections).toHaveLength(1);
  });

  it('binds the preferred port 38621, or another one when it is busy', async () => {
    const blocker: Server = createServer();
    const blocked = await new Promise<boolean>((resolve) => {
      blocker.once('error', () => resolve(false));
      blocker.listen(38621, '127.0.0.1', () => resolve(true));
    });
    const dataDir = freshDir();
    const serve = spawnServe(['--data-dir', dataDir, '--no-auth']);
    try {
      const { port } = await waitForHandshake(dataDir);
      expect(port).not.toBe(38621);
      const res = await mcp({ url: `http://127.0.0.1:${port}/mcp` }, 'server/discover');
      expect(res.status).toBe(200);
    } finally {
      serve.child.kill('SIGTERM');
      await exited(serve.child);
      if (blocked) blocker.close();
    }
  });

  it('a mistake on the command line prints one line and exits 2', () => {
    for (const args of [
      ['serve', '--port', 'eighty'],
      ['serve', '--colour'],
      ['frobnicate'],
      ['serve', 'extra'],
    ]) {
      const result = runSluice(args);
      expect(result.status, args.join(' ')).toBe(2);
      expect(result.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(result.stderr).toMatch(/^sluice: /);
    }
  });

  it('a broken configuration is reported, not a crash', () => {
    const dataDir = freshDir();
    writeFileSync(join(dataDir, 'config.json'), '{"connections": [{"id": "x"}]}');
    const result = runSluice(['serve', '--port', '0', '--data-dir', dataDir]);
    expect(result.status).toBe(78);
    expect(result.stderr).toMatch(/^sluice: config\.json: connections\[0\]\.name/);
  });
});
