#!/usr/bin/env node
// Builds dist/: the page as a static site any team can host (make dist; docs/sharing.md).
//
//   node scripts/dist.mjs [--wasm build/dist-wasm/wasm] [--web web] [--out dist] [--embed-origin ORIGIN]...
//
// dist/index.html ...   web/ as it is (ES modules, relative paths only) with the WASM build in
//                       wasm/: works from any static host and any sub-path, no build step there
// dist/kinetoscope.html one file that does everything the hosted page does, from file:// and
//                       offline: CSS and the ES modules inlined (a small bundler below), the worker
//                       (web/worker/main.js and its modules, bundled the same way), the WASM glue
//                       and the WASM (base64) in a data block the page starts as a Blob worker. Its CSP allows exactly its own inline script and style (sha256
//                       hashes), blob: workers and WebAssembly.
// dist/examples/demo/   the bundled example trace (the welcome page links to it)
// dist/_headers         frame-ancestors for hosts that read a _headers file (Netlify, Cloudflare
//                       Pages); other hosts must send it themselves (docs/sharing.md, "Embedding");
//                       and a long Cache-Control for the build-named .wasm
//
// --embed-origin (repeatable): an origin allowed to embed the page and drive it by postMessage,
// written into both pages as <meta name="kinetoscope-embed-origins"> (web/share/embed.js) and
// into _headers' frame-ancestors.
//
// Node 20, no dependencies. It prints the size of every file (raw and gzipped).
import { createHash } from 'node:crypto';
import { stampWasmDir } from './stamp_wasm.mjs';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, extname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const WORKER_BLOCK_ID = 'kinetoscope-worker-source'; // web/worker/start.js looks for it
const DEMO = 'examples/demo/h200_dataloader_stall.pt.trace.json.gz';

function fail(msg) {
  console.error(`dist: ${msg}`);
  process.exit(1);
}

function parseArgs(argv) {
  const opts = { wasm: 'build/dist-wasm/wasm', web: 'web', out: 'dist', embedOrigins: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => (i + 1 < argv.length ? argv[++i] : fail(`${a} needs a value`));
    if (a === '--wasm') opts.wasm = value();
    else if (a === '--web') opts.web = value();
    else if (a === '--out') opts.out = value();
    else if (a === '--embed-origin') {
      let o = null;
      try {
        o = new URL(value()).origin;
      } catch {
        // below
      }
      if (!o || o === 'null' || !/^https?:/.test(o)) fail('--embed-origin takes an http(s) origin, e.g. https://host.example');
      opts.embedOrigins.push(o);
    }    else if (a === '-h' || a === '--help') {
      console.log('usage: node scripts/dist.mjs [--wasm DIR] [--web DIR] [--out DIR] [--embed-origin ORIGIN]...');
      process.exit(0);
    } else fail(`unknown argument ${a}`);
  }
  for (const k of ['wasm', 'web', 'out']) opts[k] = resolve(ROOT, opts[k]);
  return opts;
}

const sha256 = (text) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
const lineOf = (src, index) => src.slice(0, index).split('\n').length;

// --- a small ES module bundler ----------------------------------------------------------------------
// Enough for the page's own code: static imports of relative paths (named, namespace, default,
// side effect) and exports of declarations, lists and defaults. Each module becomes a function scope
// that returns a frozen object of getters; importers destructure it. Anything else (dynamic import(),
// `export *`, exported `let`/`var`, whose reassignment a copy would miss, an import cycle) stops the
// build with the file and line, rather than producing a page that breaks later.

const IMPORT_FROM = /^[ \t]*import\s+([\w$*{][^'";]*?)\s+from\s*(['"])([^'"]+)\2[ \t]*;?/gm;
const IMPORT_BARE = /^[ \t]*import\s*(['"])([^'"]+)\1[ \t]*;?/gm;
const EXPORT_DECL = /^([ \t]*)export\s+(?=(async\s+function|function|class|const|let|var)\b)/gm;
const EXPORT_LIST = /^[ \t]*export\s*\{([^}]*)\}(?:\s*from\s*(['"])([^'"]+)\2)?[ \t]*;?/gm;
const EXPORT_DEFAULT = /^([ \t]*)export\s+default\s+/gm;

function specifierFile(spec, from) {
  if (!/^\.\.?\//.test(spec)) fail(`${relative(ROOT, from)}: import of '${spec}': only relative paths can be bundled`);
  const file = resolve(dirname(from), spec);
  if (!existsSync(file)) fail(`${relative(ROOT, from)}: '${spec}' does not exist`);
  return file;
}

function parseNames(list, where) {
  // "a, b as c" -> [['a','a'], ['b','c']]: [local or imported, exported or local name]
  return list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const m = /^([\w$]+)(?:\s+as\s+([\w$]+))?$/.exec(s);
      if (!m) fail(`${where}: cannot bundle the name list entry '${s}'`);
      return [m[1], m[2] || m[1]];
    });
}

function transformModule(file, modVar) {
  const rel = relative(ROOT, file);
  let src = readFileSync(file, 'utf8');
  const deps = [];
  const exports = []; // [exportedName, localExpression]
  const bindings = [];
  const dep = (spec, at) => {
    const f = specifierFile(spec, file);
    deps.push(f);
    return modVar(f, `${rel}:${lineOf(src, at)}`);
  };

  src = src.replace(IMPORT_FROM, (whole, clause, _q, spec, at) => {
    const mod = dep(spec, at);
    const where = `${rel}:${lineOf(src, at)}`;
    let rest = clause.trim();
    const ns = /^\*\s+as\s+([\w$]+)$/.exec(rest);
    if (ns) {
      bindings.push(`const ${ns[1]} = ${mod};`);
      return '';
    }
    const def = /^([\w$]+)\s*(?:,\s*(.*))?$/s.exec(rest);
    if (def) {
      bindings.push(`const ${def[1]} = ${mod}.default;`);
      rest = (def[2] || '').trim();
      if (!rest) return '';
    }
    const named = /^\{([^}]*)\}$/s.exec(rest);
    if (!named) fail(`${where}: cannot bundle the import clause '${clause}'`);
    const pairs = parseNames(named[1], where).map(([imported, local]) => (imported === local ? local : `${imported}: ${local}`));
    if (pairs.length) bindings.push(`const { ${pairs.join(', ')} } = ${mod};`);
    return '';
  });
  src = src.replace(IMPORT_BARE, (whole, _q, spec, at) => {
    dep(spec, at);
    return '';
  });
  src = src.replace(EXPORT_LIST, (whole, list, _q, spec, at) => {
    const where = `${rel}:${lineOf(src, at)}`;
    const names = parseNames(list, where);
    if (spec) {
      const mod = dep(spec, at);
      for (const [local, exported] of names) exports.push([exported, `${mod}.${local}`]);
    } else {
      for (const [local, exported] of names) exports.push([exported, local]);
    }
    return '';
  });
  src = src.replace(EXPORT_DECL, (whole, indent, kind, at) => {
    const after = src.slice(at + whole.length);
    const m = /^(?:async\s+function\s*\*?|function\s*\*?|class|const|let|var)\s*([\w$]+)/.exec(after);
    if (!m) fail(`${rel}:${lineOf(src, at)}: cannot bundle this export (destructuring?)`);
    if (kind === 'let' || kind === 'var') fail(`${rel}:${lineOf(src, at)}: export ${kind} ${m[1]}: the bundle copies bindings; export a const or a function`);
    if ((kind === 'const') && /^const\s+[\w$]+\s*=[^;]*?,\s*[\w$]+\s*=/.test(after.split('\n')[0])) {
      fail(`${rel}:${lineOf(src, at)}: one name per exported const, please`);
    }
    exports.push([m[1], m[1]]);
    return indent;
  });
  src = src.replace(EXPORT_DEFAULT, (whole, indent, at) => {
    const after = src.slice(at + whole.length);
    const named = /^(?:async\s+function\s*\*?|function\s*\*?|class)\s*([\w$]+)/.exec(after);
    if (named) {
      exports.push(['default', named[1]]);
      return indent;
    }
    exports.push(['default', '__default']);
    return `${indent}const __default = `;
  });
  const left = /^[ \t]*(import|export)\b(?!\s*\.|\s*\()/m.exec(src);
  if (left) fail(`${rel}:${lineOf(src, left.index)}: an import/export form the bundler does not know: ${src.slice(left.index, left.index + 60).split('\n')[0]}`);
  if (/\bimport\s*\(/.test(src)) fail(`${rel}: dynamic import() cannot be bundled into one file`);
  const getters = exports.map(([name, expr]) => `get ${name}() { return ${expr}; }`).join(', ');
  const body = `// ---- ${relative(ROOT, file).replace(/\\/g, '/')}\n${bindings.join('\n')}\n${src.trim()}\nreturn Object.freeze({ ${getters} });`;
  return { deps, body };
}

function bundle(entry) {
  const vars = new Map();
  const modVar = (f) => {
    if (!vars.has(f)) vars.set(f, `__ks_module_${vars.size}`);
    return vars.get(f);
  };
  const order = [];
  const state = new Map(); // file -> 'visiting' | 'done'
  const visit = (file, chain) => {
    if (state.get(file) === 'done') return;
    if (state.get(file) === 'visiting') fail(`import cycle: ${[...chain, file].map((f) => relative(ROOT, f)).join(' -> ')}`);
    state.set(file, 'visiting');
    const mod = transformModule(file, modVar);
    for (const d of mod.deps) visit(d, [...chain, file]);
    state.set(file, 'done');
    order.push({ file, ...mod });
  };
  visit(entry, []);
  const parts = order.map((m) => `const ${modVar(m.file)} = (() => {\n${m.body}\n})();`);
  return { code: `// Kinetoscope, bundled by scripts/dist.mjs: ${order.length} modules.\n${parts.join('\n\n')}\n`, modules: order.length };
}

// node --check on the bundle: a syntax error stops the build, not the page.
function checkSyntax(code, what, ext) {
  const dir = mkdtempSync(join(tmpdir(), 'kinetoscope-dist-'));
  const file = join(dir, `check${ext}`);
  writeFileSync(file, code);
  const r = spawnSync(process.execPath, ['--check', file], { encoding: 'utf8' });
  rmSync(dir, { recursive: true, force: true });
  if (r.status !== 0) fail(`${what} is not valid JavaScript:\n${r.stderr}`);
}

// Text that goes inside <script> or <style>: the HTML parser must not see an end tag in it.
function inlineSafe(text, what) {
  const bad = /<\/(script|style)|<!--/i.exec(text);
  if (bad) fail(`${what} contains '${bad[0]}', which would end the inline element early`);
  return text;
}

// --- the single-file page ---------------------------------------------------------------------------

const DATA_MIME = { '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon' };
const dataUrl = (file) => {
  const mime = DATA_MIME[extname(file).toLowerCase()];
  if (!mime) fail(`${relative(ROOT, file)}: no data: URL type for ${extname(file)}`);
  return `data:${mime};base64,${readFileSync(file).toString('base64')}`;
};
const isRelative = (u) => !/^(?:[a-z][a-z0-9+.-]*:|#|\/\/|\/)/i.test(u);

function singleFile(opts, indexHtml) {
  let html = indexHtml;
  const web = opts.web;

  // Styles: every <link rel=stylesheet> becomes one <style> where the first one was.
  const styles = [];
  html = html.replace(/<link\s+rel="stylesheet"\s+href="([^"]+)"\s*>\n?/g, (whole, href) => {
    if (!isRelative(href)) fail(`index.html links a stylesheet from elsewhere: ${href}`);
    const css = readFileSync(join(web, href), 'utf8');
    if (/@import|url\(\s*['"]?(?!data:)/i.test(css)) fail(`${href}: @import or url() of a file cannot be inlined yet`);
    styles.push(`/* ---- ${href} */\n${css.trim()}\n`);
    return styles.length === 1 ? '<!--KS-STYLE-->\n' : '';
  });
  const css = inlineSafe(styles.join('\n'), 'the CSS');
  html = html.replace('<!--KS-STYLE-->', () => `<style>\n${css}</style>`);

  // Scripts: the module entry becomes one inline module (import.meta.url is the page's URL there).
  const hashes = [];
  const scripts = [];
  html = html.replace(/<script\s+type="module"\s+src="([^"]+)"\s*><\/script>/g, (whole, src) => {
    if (!isRelative(src)) fail(`index.html loads a script from elsewhere: ${src}`);
    const { code, modules } = bundle(join(web, src));
    checkSyntax(code, `the bundle of ${src}`, '.mjs');
    console.log(`dist: bundled ${src} and the ${modules - 1} modules it imports`);
    const text = `\n${inlineSafe(code, `the bundle of ${src}`)}`;
    hashes.push(sha256(text));
    scripts.push(`<script type="module">${text}</script>`);
    return `<!--KS-SCRIPT-${scripts.length - 1}-->`;
  });
  if (!scripts.length) fail('index.html has no <script type="module" src=...> entry');
  if (/<script\b[^>]*\bsrc=/i.test(html)) fail('index.html has a <script src> that is not a type="module" entry: teach scripts/dist.mjs to inline it');

  // Images and icons become data: URLs.
  html = html.replace(/(<(?:img|link)\b[^>]*?\b(?:src|href)=")([^"]+)(")/g, (whole, pre, url, post) =>
    isRelative(url) && existsSync(join(web, url)) ? `${pre}${dataUrl(join(web, url))}${post}` : whole,
  );
  const leftover = /\b(?:src|href)="([^"#][^"]*)"/.exec(html.replace(/data:[^"]*/g, ''));
  if (leftover && isRelative(leftover[1])) fail(`index.html refers to ${leftover[1]}, which the single file cannot carry`);
  html = html.replace(/<!--KS-SCRIPT-(\d+)-->/g, (whole, i) => scripts[Number(i)]);

  // The worker: glue + WASM (base64) + the worker's modules (worker/main.js and its imports,
  // bundled into one classic script as the page's are), in a block that is data, not script
  // (type=text/x-...). The hosted page's web/worker.js is not used: it only loads the same modules.
  const glue = readFileSync(join(opts.wasm, 'kinetoscope_wasm.js'), 'utf8');
  const wasm = readFileSync(join(opts.wasm, 'kinetoscope_wasm.wasm'));
  const workerJs = bundle(join(web, 'worker/main.js')).code;
  const workerSource = [
    '// Kinetoscope analyzer worker, single-file build: Emscripten glue, the WASM as base64, worker/main.js bundled.',
    glue.trim(),
    `self.kinetoscopeWasmBase64 = '${wasm.toString('base64')}';`,
    workerJs.trim(),
    '',
  ].join('\n');
  checkSyntax(workerSource, 'the worker source', '.cjs');
  inlineSafe(workerSource, 'the worker source');
  const block = `<script type="text/x-kinetoscope-worker" id="${WORKER_BLOCK_ID}">\n${workerSource}</script>\n`;
  html = html.replace('</body>', () => `${block}</body>`);

  // The policy: this file's own inline script and style only; the worker from a blob: URL;
  // WebAssembly may compile; fetches only from the same origin (none from file://).
  const csp = [
    "default-src 'none'",
    `script-src ${hashes.join(' ')} 'wasm-unsafe-eval'`,
    `style-src ${sha256(`\n${css}`)}`,
    'worker-src blob:',
    "connect-src 'self' blob:",
    'img-src data: blob:',
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  const before = html;
  html = html.replace(/(<meta http-equiv="Content-Security-Policy" content=")[^"]*(")/, (w, a, b) => `${a}${csp}${b}`);
  if (html === before) fail('index.html has no <meta http-equiv="Content-Security-Policy"> to replace');
  html = html.replace(/<!-- dist:offline-link[^>]*-->\n?/, '');
  html = html.replace(/<!-- Strict CSP[^>]*-->/, () => '<!-- Strict CSP: only the inline script and style below (by hash), the worker from a blob: URL, WebAssembly; nothing fetched. -->');
  return html;
}

// --- the site ------------------------------------------------------------------------------------------

function listFiles(dir, base = dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...listFiles(p, base));
    else out.push(relative(base, p));
  }
  return out;
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  for (const f of ['kinetoscope_wasm.js', 'kinetoscope_wasm.wasm']) {
    if (!existsSync(join(opts.wasm, f))) fail(`${join(opts.wasm, f)} is missing: build the WASM first (make dist does)`);
  }
  if (/new Function\(|new_\(Function/.test(readFileSync(join(opts.wasm, 'kinetoscope_wasm.js'), 'utf8'))) {
    fail('the WASM glue evaluates strings as code (new Function), which the CSP refuses: link with -sDYNAMIC_EXECUTION=0');
  }
  rmSync(opts.out, { recursive: true, force: true });
  mkdirSync(opts.out, { recursive: true });

  // The hosted site: web/ as it is, the WASM beside it, the example trace.
  cpSync(opts.web, opts.out, { recursive: true });
  mkdirSync(join(opts.out, 'wasm'));
  for (const f of ['kinetoscope_wasm.js', 'kinetoscope_wasm.wasm']) cpSync(join(opts.wasm, f), join(opts.out, 'wasm', f));
  stampWasmDir(join(opts.out, 'wasm')); // the .wasm's URL names its build (scripts/stamp_wasm.mjs)
  let indexHtml = readFileSync(join(opts.web, 'index.html'), 'utf8');
  if (opts.embedOrigins.length) {
    const meta = `<meta name="kinetoscope-embed-origins" content="${opts.embedOrigins.join(' ')}">`;
    const withMeta = indexHtml.replace(/(<meta http-equiv="Content-Security-Policy"[^>]*>)/, (m) => `${m}\n${meta}`);
    if (withMeta === indexHtml) fail('index.html has no <meta http-equiv="Content-Security-Policy"> to put the embed origins after');
    indexHtml = withMeta;
  }
  let offline = '<p>Offline: <a href="kinetoscope.html" download>kinetoscope.html</a> is this page as one file that works without a network (open it by double-click).';
  if (existsSync(join(ROOT, DEMO))) {
    cpSync(join(ROOT, DEMO), join(opts.out, DEMO));
    offline += ` Or try it on <a href="?url=${DEMO}">an example trace</a>.`;
  }
  writeFileSync(join(opts.out, 'index.html'), indexHtml.replace(/<!-- dist:offline-link[^>]*-->/, () => `${offline}</p>`));
  writeFileSync(join(opts.out, '.nojekyll'), ''); // GitHub Pages: serve every file as it is
  const ancestors = ["'self'", ...opts.embedOrigins].join(' ');
  // The page's <meta> policy binds the page only: a worker takes its policy from its own
  // response, so without this rule the analyzer worker, which reads the untrusted trace, ran
  // unconfined (any connect-src, any importScripts origin) on every host. Not on /*: the single
  // file's inline script and style would be refused by script-src 'self'.
  const pagePolicy = /<meta http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(indexHtml);
  if (!pagePolicy) fail('index.html has no <meta http-equiv="Content-Security-Policy"> for the worker\'s header');
  // The worker asks for the .wasm under its build's name (?v=, scripts/stamp_wasm.mjs), so it may
  // be kept without revalidation, which keeps V8's cached optimized code for it (docs/sharing.md).
  writeFileSync(
    join(opts.out, '_headers'),
    `/*\n  Content-Security-Policy: frame-ancestors ${ancestors}\n  X-Content-Type-Options: nosniff\n` +
      `/worker.js\n  Content-Security-Policy: ${pagePolicy[1]}\n` +
      `/wasm/kinetoscope_wasm.wasm\n  Cache-Control: public, max-age=31536000, immutable\n`,
  );

  // The single file carries the example trace itself (it cannot fetch one): web/views/welcome.js.
  let single = singleFile(opts, indexHtml);
  if (existsSync(join(ROOT, DEMO))) single = single.replace('<html lang="en">', () => `<html lang="en" data-example="${readFileSync(join(ROOT, DEMO)).toString('base64')}">`);
  writeFileSync(join(opts.out, 'kinetoscope.html'), single);

  const rows = listFiles(opts.out).map((f) => {
    const data = readFileSync(join(opts.out, f));
    return { file: f, bytes: data.length, gzip: gzipSync(data, { level: 9 }).length };
  });
  const w = Math.max(...rows.map((r) => r.file.length));
  console.log(`dist: ${relative(ROOT, opts.out) || '.'}/  (bytes, gzip -9 bytes)`);
  for (const r of rows) console.log(`  ${r.file.padEnd(w)}  ${String(r.bytes).padStart(9)}  ${String(r.gzip).padStart(9)}`);
}

main();
