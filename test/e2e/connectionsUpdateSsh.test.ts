import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exited, runSluice, spawnServe, waitForHandshake, type ServeProcess } from '../helpers/cli.js';

/**
 * `sluice connections update ID --ssh …|--ssh-key …|--ssh-agent|--ssh-jump …|--no-ssh`: the saved ssh
 * block after each update, in the config file and through a running application's control socket.
 */

const SHOP_URL = 'postgres://reader@db.internal:5432/shop';

describe.each(['offline', 'running'] as const)('connections update and the SSH tunnel (%s)', (mode) => {
  let dataDir: string;
  let serve: ServeProcess | undefined;
  const sluice = (...args: string[]) => runSluice([...args, '--data-dir', dataDir]);
  const outcome = (result: ReturnType<typeof runSluice>) => ({ status: result.status, stdout: result.stdout, stderr: result.stderr });
  const saved = () => (JSON.parse(readFileSync(join(dataDir, 'config.json'), 'utf8')) as { connections: Array<Record<string, unknown>> }).connections.find((c) => c.id === 'shop');
  const update = (...args: string[]) => outcome(sluice('connections', 'update', 'shop', ...args, '--no-check'));
  const updated = { status: 0, stdout: 'updated shop\n', stderr: '' };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), `sluice-update-ssh-${mode}-`));
    if (mode === 'running') {
      serve = spawnServe(['--port', '0', '--no-console', '--data-dir', dataDir]);
      await waitForHandshake(dataDir);
    }
    expect(outcome(sluice('connections', 'add', '--name', 'Shop', '--url', SHOP_URL, '--no-check'))).toEqual({ status: 0, stdout: 'added shop\n', stderr: '' });
  });
  afterAll(async () => {
    if (serve) {
      serve.child.kill('SIGTERM');
      await exited(serve.child);
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('--ssh puts the connection behind a tunnel; its url and settings stay', () => {
    expect(update('--ssh', 'deploy@bastion.example:2222')).toEqual(updated);
    expect(saved()).toEqual({
      id: 'shop',
      name: 'Shop',
      engine: 'postgres',
      url: SHOP_URL,
      externalAccess: 'readOnly',
      aiPolicy: 'askEachTime',
      ssh: { host: 'bastion.example', port: 2222, user: 'deploy' },
    });
  });

  it('a second --ssh replaces the whole tunnel, with its key, agent and jump hosts', () => {
    expect(update('--ssh', 'ops@gateway', '--ssh-key', join(dataDir, 'id_ed25519'), '--ssh-agent', '--ssh-jump', 'jump1,me@jump2:2200')).toEqual(updated);
    expect(saved()!.ssh).toEqual({ host: 'gateway', user: 'ops', keyFile: join(dataDir, 'id_ed25519'), agent: true, jump: 'jump1,me@jump2:2200' });
  });

  it('another change leaves the tunnel as it is', () => {
    expect(update('--name', 'Shop (prod)')).toEqual(updated);
    expect(saved()).toMatchObject({ name: 'Shop (prod)', ssh: { host: 'gateway', user: 'ops', agent: true, jump: 'jump1,me@jump2:2200' } });
  });

  it('refuses tunnel options without --ssh, a bad hop, and --ssh with --no-ssh, leaving the tunnel', () => {
    const before = saved();
    expect(update('--ssh-agent')).toEqual({ status: 2, stdout: '', stderr: 'sluice: --ssh-key, --ssh-agent and --ssh-jump go with --ssh user@host[:port]\n' });
    expect(update('--ssh', 'a@b@c')).toEqual({ status: 2, stdout: '', stderr: 'sluice: --ssh must be [user@]host[:port] (the host may be a ~/.ssh/config alias)\n' });
    expect(update('--ssh', 'gateway', '--no-ssh')).toEqual({ status: 2, stdout: '', stderr: 'sluice: give --ssh … or --no-ssh, not both\n' });
    expect(saved()).toEqual(before);
  });

  it('--no-ssh removes the tunnel', () => {
    expect(update('--no-ssh')).toEqual(updated);
    expect(saved()).toEqual({ id: 'shop', name: 'Shop (prod)', engine: 'postgres', url: SHOP_URL, externalAccess: 'readOnly', aiPolicy: 'askEachTime' });
  });
});
