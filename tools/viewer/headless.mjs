// The viewer in headless Chromium, shared by test/browser.test.mjs and shoot.mjs: a static
// server for the viewer's folder (and recordings under /rec/NAME), and a Chromium launch
// (Debian's `chromium`, software GL through SwiftShader) driven by playwright-core.
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

export const viewerDir = fileURLToPath(new URL('.', import.meta.url));
/** CHROMIUM, else /usr/bin/chromium. */
export const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';

/** Serves the viewer's folder, and /rec/NAME from `files` (NAME -> path), on 127.0.0.1. */
export function serve(files) {
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    let file = null;
    if (path.startsWith('/rec/')) file = files[path.slice(5)];
    else if (!path.includes('..')) file = join(viewerDir, normalize(path === '/' ? 'index.html' : path));
    if (!file || !existsSync(file)) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { 'Content-Type': types[extname(file)] || 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Launches headless Chromium (a fresh profile in a temporary user data dir, removed on close). */
export async function launch(executablePath = chromiumPath) {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      '--headless', '--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
      '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run',
    ],
  });
}
