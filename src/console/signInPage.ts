/**
 * The console's sign-in page, in its three forms: `signedOut` (no session: how to get a link),
 * `signingIn` (a current link, exchanged by `/signIn.js`) and `badLink` (a link used already or wrong).
 */
export type SignInForm = 'signedOut' | 'signingIn' | 'badLink';

const RUN_CONSOLE = 'run <code>sluice console</code> in a terminal on this computer: it prints a one-time link that opens the console';

const FORMS: Record<SignInForm, { title: string; body: string }> = {
  signedOut: {
    title: 'Sign in to the Sluice console',
    body: `<p>To open the console, ${RUN_CONSOLE}. Sluice also prints one when it starts.</p>`,
  },
  signingIn: {
    title: 'Signing in…',
    body: `<p data-sign-in-status>Opening the console.</p>
    <noscript><p>The console needs JavaScript.</p></noscript>`,
  },
  badLink: {
    title: 'This sign-in link cannot be used',
    body: `<p>It was used already, or it is wrong: each link opens the console once.</p>
    <p>For a new one, ${RUN_CONSOLE}.</p>
    <p>Signed in already in this browser? <a href="/">Go to the console</a>.</p>`,
  },
};

export function signInPage(form: SignInForm): string {
  const { title, body } = FORMS[form];
  const script = form === 'signingIn' ? '\n  <script type="module" src="/signIn.js"></script>' : '';
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="color-scheme" content="light dark">
  <meta name="referrer" content="no-referrer">
  <title>${title} · Sluice</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="/theme.css">
  <link rel="stylesheet" href="/signIn.css">${script}
</head>
<body>
  <header class="site-header">
    <div class="wrap header-row">
      <p class="brand"><span class="brand-name">Sluice</span> <span class="brand-sub">console</span></p>
    </div>
  </header>
  <main id="main" class="wrap sign-in" data-sign-in="${form}">
    <div class="card">
    <h1>${title}</h1>
    ${body}
    </div>
  </main>
</body>
</html>
`;
}
