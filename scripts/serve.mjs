#!/usr/bin/env node
// A tiny static file server for the Kinetoscope page (Node 20, no dependencies).
//
//   node scripts/serve.mjs [--port 8000] [--host 127.0.0.1] [--root web]
//                          [--map /wasm=build/wasm] [--map /examples=examples] [--open-path /?url=...]
//                          [--embed-origin https://host.example]...
//
// The page lives in web/; built files stay in build/ and are mapped in (/wasm -> build/wasm), so
// nothing generated is ever written into web/. Files are served byte for byte: a .gz is sent as
// application/gzip with no Content-Encoding, because the page decompresses it itself.
// --port 0 picks a free port; the start line always prints the real one (the browser tests read it).
import { createServer } from 'node:http';
import { createReadStream, promises as fsp } from 'node:fs';
import { resolve, sep, extname, join } from 'node:path';

// The page's policy (web/index.html has it in a <meta>), sent as a header too: a <meta> policy does
// not reach a worker loaded from a URL, which takes its policy from its own response. With this, the
// worker may only compile WASM and fetch from this origin as well.
const CSP =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self' blob:; connect-src 'self' blob:; " +
  "img-src 'self' data: blob:; style-src 'self'; object-src 'none'; base-uri 'none'";
// Who may frame the page: this origin, and each --embed-origin (docs/sharing.md, "Embedding").
// frame-ancestors only works as a header (a <meta> policy ignores it), so static hosts must send it.
const frameAncestors = (origins) => `frame-ancestors 'self'${origins.map((o) => ' ' + o).join('')}`;

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.gz': 'application/gzip',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
};

function parseArgs(argv) {
  const opts = { port: 8000, host: '127.0.0.1', root: 'web', maps: [], openPath: '/', embedOrigins: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) fail(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--port') opts.port = Number(value());
    else if (a === '--host') opts.host = value();
    else if (a === '--root') opts.root = value();
    else if (a === '--open-path') opts.openPath = value();
    else if (a === '--embed-origin') {
      let o = null;
      try {
        o = new URL(value()).origin;
      } catch {
        // below
      }
      if (!o || o === 'null' || !/^https?:/.test(o)) fail('--embed-origin takes an http(s) origin, e.g. https://host.example');
      opts.embedOrigins.push(o);
    }    else if (a === '--map') {
      const m = /^(\/[^=]*)=(.+)$/.exec(value());
      if (!m) fail('--map takes /PREFIX=DIR');
      opts.maps.push({ prefix: m[1].replace(/\/+$/, ''), dir: resolve(m[2]) });
    } else if (a === '-h' || a === '--help') {
      console.log('usage: node scripts/serve.mjs [--port N] [--host H] [--root DIR] [--map /PREFIX=DIR]... [--open-path PATH] [--embed-origin ORIGIN]...');
      process.exit(0);
    } else fail(`unknown argument ${a}`);
  }
  if (!Number.isInteger(opts.port) || opts.port < 0 || opts.port > 65535) fail('--port must be 0..65535');
  opts.root = resolve(opts.root);
  // Longest prefix first, so /wasm/x wins over a shorter mapping.
  opts.maps.sort((x, y) => y.prefix.length - x.prefix.length);
  return opts;
}

function fail(msg) {
  console.error(`serve: ${msg}`);
  process.exit(2);
}

// URL path -> absolute file path, or null when the path tries to leave its directory.
function toFile(urlPath, opts) {
  let path;
  try {
    path = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (path.includes('\0') || path.includes('\\')) return null;
  const parts = path.split('/');
  if (parts.some((p) => p === '..' || p === '.')) return null;
  let base = opts.root;
  let rest = path;
  for (const m of opts.maps) {
    if (path === m.prefix || path.startsWith(m.prefix + '/')) {
      base = m.dir;
      rest = path.slice(m.prefix.length);
      break;
    }
  }
  const file = resolve(join(base, rest));
  if (file !== base && !file.startsWith(base + sep)) return null;
  return file;
}

function send(res, status, text) {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(text + '\n');
}

async function handle(req, res, opts) {
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'method not allowed');
  const url = new URL(req.url, 'http://local');
  let file = toFile(url.pathname, opts);
  if (!file) return send(res, 403, 'forbidden');
  let st;
  try {
    st = await fsp.stat(file);
    if (st.isDirectory()) {
      if (!url.pathname.endsWith('/')) {
        res.writeHead(301, { Location: url.pathname + '/' + url.search });
        return res.end();
      }
      file = join(file, 'index.html');
      st = await fsp.stat(file);
    }
  } catch {
    return send(res, 404, 'not found');
  }
  if (!st.isFile()) return send(res, 404, 'not found');
  // A validator, as any static host sends one: the browser revalidates and gets 304 for an
  // unchanged file.
  const etag = `"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`;
  // The worker names the build in the .wasm's URL (?v=, scripts/stamp_wasm.mjs): that URL's
  // bytes never change, so it may be kept without asking again, and Chromium then keeps V8's
  // optimized code for it, which a revalidated (no-cache, 304) entry loses.
  const versioned = extname(file).toLowerCase() === '.wasm' && url.searchParams.has('v');
  const cacheControl = versioned ? 'public, max-age=31536000, immutable' : 'no-cache';
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, { ETag: etag, 'Cache-Control': cacheControl });
    return res.end();
  }
  res.writeHead(200, {
    'Content-Type': MIME[extname(file).toLowerCase()] || 'application/octet-stream',
    'Content-Length': st.size,
    ETag: etag,
    // Development server: anything else is revalidated, so a rebuilt file is never served stale.
    'Cache-Control': cacheControl,
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': `${CSP}; ${frameAncestors(opts.embedOrigins)}`,
  });
  if (req.method === 'HEAD') return res.end();
  const stream = createReadStream(file);
  stream.on('error', () => res.destroy());
  stream.pipe(res);
}

const opts = parseArgs(process.argv.slice(2));
const server = createServer((req, res) => {
  handle(req, res, opts).catch(() => {
    if (!res.headersSent) send(res, 500, 'internal error');
    else res.destroy();
  });
});
server.on('error', (e) => fail(e.message));
server.listen(opts.port, opts.host, () => {
  const { port } = server.address();
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  const path = opts.openPath.startsWith('/') ? opts.openPath : '/' + opts.openPath;
  console.log(`Kinetoscope: http://${host}:${port}${path}`);
});
// Open keep-alive connections would hold server.close() open; a dev server can just stop.
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(0));
