import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sshHostConfig } from '../../../src/db/reach/sshConfig.js';
import { parseSshHop } from '../../../src/db/reach/sshOptions.js';

const CONFIG = `
# company hosts
Host db-bastion
  HostName bastion.example.com
  User jump
  Port 2222

Host prod-* !prod-legacy
  HostName %h.internal.example.com
  User deploy
  IdentityFile ~/.ssh/prod_ed25519
  ProxyJump db-bastion

Host prod-db1
  User ignored-because-first-value-wins
  Port=2200

Match host *.example.com
  User never-read

Host *
  User fallback
  IdentityFile "/keys/default key"
`;

describe('sshHostConfig', () => {
  it('applies the first value of each keyword from every matching Host block', () => {
    expect(sshHostConfig(CONFIG, 'prod-db1')).toEqual({
      hostName: 'prod-db1.internal.example.com',
      user: 'deploy',
      identityFile: join(homedir(), '.ssh/prod_ed25519'),
      proxyJump: 'db-bastion',
      port: 2200,
    });
  });

  it('honours negated patterns and falls through to Host *', () => {
    expect(sshHostConfig(CONFIG, 'prod-legacy')).toEqual({ user: 'fallback', identityFile: '/keys/default key' });
  });

  it('reads a jump host alias', () => {
    expect(sshHostConfig(CONFIG, 'db-bastion')).toEqual({
      hostName: 'bastion.example.com',
      user: 'jump',
      port: 2222,
      identityFile: '/keys/default key',
    });
  });

  it('matches patterns case-insensitively and whole names only', () => {
    expect(sshHostConfig('Host Web?\n  HostName web.example.com\n', 'web1')).toEqual({ hostName: 'web.example.com' });
    expect(sshHostConfig('Host web?\n  HostName web.example.com\n', 'web12')).toEqual({});
  });

  it('ignores Match blocks, other keywords and invalid ports', () => {
    expect(sshHostConfig('Match all\n  User m\nHost x\n  ForwardAgent yes\n  Port 99999\n', 'x')).toEqual({});
  });
});

describe('parseSshHop', () => {
  it('reads [user@]host[:port], IPv6 in brackets', () => {
    expect(parseSshHop('deploy@db.example.com:2222')).toEqual({ user: 'deploy', host: 'db.example.com', port: 2222 });
    expect(parseSshHop('bastion')).toEqual({ host: 'bastion' });
    expect(parseSshHop('root@[::1]:22')).toEqual({ user: 'root', host: '::1', port: 22 });
  });

  it('refuses what is not one', () => {
    expect(parseSshHop('a@b@c')).toBeUndefined();
    expect(parseSshHop('host:0')).toBeUndefined();
    expect(parseSshHop('host:70000')).toBeUndefined();
    expect(parseSshHop('')).toBeUndefined();
  });
});
