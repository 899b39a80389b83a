import { describe, expect, it } from 'vitest';
import { consoleOpenPage } from '../../../src/console/consoleOpenPage.js';

describe('the page that takes the browser to the console (so the secret is on no command line)', () => {
  it('redirects to the one-time link, and links to it', () => {
    const link = 'http://127.0.0.1:38622/open?secret=AbC_d-9';
    expect(consoleOpenPage(link)).toBe(
      [
        '<!doctype html>',
        '<meta charset="utf-8">',
        '<meta name="referrer" content="no-referrer">',
        '<meta http-equiv="refresh" content="0; url=http://127.0.0.1:38622/open?secret=AbC_d-9">',
        '<title>Sluice</title>',
        '<p><a href="http://127.0.0.1:38622/open?secret=AbC_d-9">Open the Sluice console</a></p>',
        '',
      ].join('\n'),
    );
  });

  it('takes nothing but a console link, so nothing in it needs escaping', () => {
    expect(() => consoleOpenPage('http://127.0.0.1:1/open?secret=a"><script>')).toThrow('not a console link');
    expect(() => consoleOpenPage('https://example.com/open?secret=abc')).toThrow('not a console link');
  });
});
