// The sign-in form of an exposed web chat: one field for WEB_AUTH_TOKEN. Its few style rules are
// allowed by their hash, so the page needs nothing that itself requires the token.
import { createHash } from 'node:crypto';

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:24rem;margin:15vh auto;padding:0 1rem}input,button{font:inherit;padding:.5rem;width:100%;box-sizing:border-box;margin:.25rem 0}p.error{color:#b00020}';

export const LOGIN_CSP = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;

export function loginPage(error?: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>threadmind: sign in</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>threadmind</h1>
<form method="post" action="/login">
<label for="token">Web chat token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Sign in</button>
</form>
${error ? `<p class="error" role="alert">${error}</p>` : ''}
</main>
</body>
</html>
`;
}
