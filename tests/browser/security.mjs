// Hostile hosts and hostile names (issue 17; docs/hardening.md, docs/sharing.md), run by run.mjs:
//  - embedding: a host at an origin the page does not allow gets nothing (no ready, no report, no
//    load); an allowed one (?embed=ORIGIN) gets its report at its exact origin; a trace the user
//    opened is not replaced (and the reply does not name it); an opaque (file://) host is refused
//    even when listed; a host that navigates away during a load gets nothing at its next page and
//    the page throws nothing (also a sandboxed frame, origin 'null', sent elsewhere mid-load: the
//    code before the fix answered it with '*' and the next site got the report; the test fails
//    on that code); the served pages send frame-ancestors;
//  - the Markdown export (the "Markdown" button's file and "Copy findings") of a trace of hostile
//    names renders through cmark-gfm with no <img> and no <a> (fails when the escaping leaves
//    [ ( ! raw and code spans use a one-backtick fence);
//  - ?url= refuses a same-origin URL that redirects to another origin (nothing fetched there);
//  - hostile names (bidi controls, zero-width and invisible characters) reach no text node,
//    attribute, status line or document.title, in the report, the timeline, ranks and compare.
import { createServer, request } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { check, openPage, loadFile, loads, settled, noErrors, startServeMjs } from './lib.mjs';

// Bidi controls, zero-width and invisible characters a name may hide.
const HIDDEN = /[\u202a-\u202e\u2066-\u2069\u200b-\u200f\ufeff\u2060\u061c]/;
const RLO = '\u202e';

function hostileTrace(tag) {
  const k = (name, ts, corr) => ({ ph: 'X', cat: 'kernel', name, pid: 0, tid: 7, ts, dur: 40, args: { stream: 7, device: 0, correlation: corr } });
  const r = (ts, corr) => ({ ph: 'X', cat: 'cuda_runtime', name: 'cudaLaunchKernel', pid: 1, tid: 1, ts, dur: 5, args: { correlation: corr } });
  const names = [`gemm_${RLO}txt.exe`, `zero\u200bwidth\ufeff`, `iso\u2066late\u2069 ${tag}`, `mark\u200e\u200f\u061c`];
  const events = [
    { ph: 'M', name: 'process_name', pid: 0, tid: 0, args: { name: `gpu${RLO}0` } },
    { ph: 'M', name: 'thread_name', pid: 1, tid: 1, args: { name: `main\u200b${RLO}` } },
    { ph: 'X', cat: 'user_annotation', name: `ProfilerStep#1`, pid: 1, tid: 1, ts: 0, dur: 1000 },
    { ph: 'X', cat: 'cpu_op', name: `aten::${RLO}mm\u200d`, pid: 1, tid: 1, ts: 10, dur: 500 },
  ];
  names.forEach((n, i) => events.push(r(20 + 100 * i, i + 1), k(n, 30 + 100 * i, i + 1)));
  return JSON.stringify({ traceEvents: events });
}

// Every text node, attribute value, the title and the status line, joined.
const pageText = (page) =>
  page.evaluate(() => {
    const out = [document.title];
    const walk = (node) => {
      if (node.nodeType === Node.TEXT_NODE) out.push(node.nodeValue);
      if (node.attributes) for (const a of node.attributes) out.push(a.value);
      if (node.shadowRoot) walk(node.shadowRoot);
      for (const c of node.childNodes) walk(c);
    };
    walk(document.documentElement);
    for (const el of document.querySelectorAll('input, textarea')) out.push(el.value || '');
    return out.join('\n');
  });

function checkNoHidden(text, where) {
  const m = HIDDEN.exec(text);
  check(!m, `${where}: a raw U+${m && m[0].charCodeAt(0).toString(16).toUpperCase()} reached the page: …${m && JSON.stringify(text.slice(Math.max(0, m.index - 40), m.index + 40))}…`);
}

// A host page's messages, recorded from its first script on (also after it navigates).
async function hostPage(ctx, url) {
  const page = await ctx.newPage();
  await page.addInitScript(() => {
    window.__got = [];
    window.addEventListener('message', (e) => window.__got.push({ origin: e.origin, type: e.data && e.data.type, data: e.data }));
  });
  await page.goto(url);
  return page;
}

// In the host: opens Kinetoscope at `url` (window.__k) and returns its page.
function openFromHost(host, url) {
  return Promise.all([host.context().waitForEvent('page'), host.evaluate((u) => void (window.__k = window.open(u, '_blank')), url)]).then(([p]) => p);
}

const got = (host) => host.evaluate(() => window.__got.map((m) => ({ origin: m.origin, type: m.type, ok: m.data && m.data.ok, error: m.data && m.data.error, name: m.data && m.data.name, report: !!(m.data && m.data.report) })));

function postOpen(host, kOrigin, name, text, wantReport = true) {
  return host.evaluate(
    ([o, n, t, w]) => {
      const buffer = new TextEncoder().encode(t).buffer;
      window.__k.postMessage({ type: 'kinetoscope-open', name: n, buffer, wantReport: w }, o, [buffer]);
    },
    [kOrigin, name, text, wantReport],
  );
}

// Holds every message the page sends its workers for `ms` from now on, so a load the page starts
// stays running that long whatever the machine's speed. (Playwright's routes do not see a
// worker's own requests, so delaying the WebAssembly there does not work.)
function holdWorkerMessages(page, ms) {
  return page.evaluate((delay) => {
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (...args) {
      setTimeout(() => post.apply(this, args), delay);
    };
    window.__releaseWorkers = () => (Worker.prototype.postMessage = post);
  }, ms);
}

async function waitFor(page, fn, arg, ms = 30_000) {
  await page.waitForFunction(fn, arg, { timeout: ms });
}

// A proxy in front of the page's server, at its own origin, with one extra path: /go redirects to
// `to`. Another server counts what reaches it (it allows any origin, so only the redirect rule
// keeps its file out).
async function redirectRig(origin, trace) {
  let hits = 0;
  const other = createServer((req, res) => {
    hits++;
    res.writeHead(200, { 'Content-Type': 'application/json', 'Access-Control-Allow-Origin': '*' });
    res.end(trace);
  });
  await new Promise((r) => other.listen(0, '127.0.0.1', r));
  const otherUrl = `http://127.0.0.1:${other.address().port}/x.json`;
  const proxy = createServer((req, res) => {
    if (req.url.startsWith('/go')) {
      res.writeHead(302, { Location: otherUrl });
      return res.end();
    }
    const up = request(`${origin}${req.url}`, { method: req.method, headers: req.headers }, (r) => {
      // As GitHub Pages: no CSP header, so only the page's <meta> policy, which binds no worker.
      const headers = { ...r.headers };
      delete headers['content-security-policy'];
      res.writeHead(r.statusCode, headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise((r) => proxy.listen(0, '127.0.0.1', r));
  return {
    origin: `http://127.0.0.1:${proxy.address().port}`,
    hits: () => hits,
    close: () => {
      proxy.closeAllConnections(); // else close() waits for the browser's keep-alive connections
      other.closeAllConnections();
      return Promise.all([new Promise((r) => proxy.close(r)), new Promise((r) => other.close(r))]);
    },
  };
}

// Names that GitHub-flavoured Markdown would turn into an image, a link or an HTML tag if they
// reached it raw (issue 17): the exported Markdown must render with none of them.
const MARKDOWN_HOSTILE = [
  '![x](http://h.example/x.png)',
  '[click](javascript:alert(1))',
  'gemm`_![y](http://h.example/y.png)',
  '``a``[z](http://h.example/z)`',
  'see https://evil.example/p?q=1 now',
  'www.evil.example',
  '<img src=http://h.example/i.png>',
  '<http://evil.example/auto>',
];

function markdownHostileTrace() {
  const events = [
    { ph: 'X', cat: 'user_annotation', name: 'ProfilerStep#1', pid: 1, tid: 1, ts: 0, dur: 5000 },
    { ph: 'X', cat: 'user_annotation', name: 'ProfilerStep#2', pid: 1, tid: 1, ts: 5000, dur: 5000 },
  ];
  MARKDOWN_HOSTILE.forEach((name, i) => {
    const ts = 100 + 1000 * i;
    events.push({ ph: 'X', cat: 'cpu_op', name, pid: 1, tid: 1, ts, dur: 300 });
    events.push({ ph: 'X', cat: 'cuda_runtime', name: 'cudaLaunchKernel', pid: 1, tid: 1, ts: ts + 10, dur: 5, args: { correlation: i + 1 } });
    // Long idle gaps: findings that quote the names.
    events.push({ ph: 'X', cat: 'kernel', name, pid: 0, tid: 7, ts: ts + 20, dur: 40 + i, args: { stream: 7, device: 0, correlation: i + 1 } });
  });
  return JSON.stringify({ traceEvents: events });
}

// GFM's HTML of `markdown` (Debian's cmark-gfm with GitHub's extensions); a missing cmark-gfm
// fails the test (scripts/setup.sh installs it).
function gfmHtml(markdown) {
  const r = spawnSync('cmark-gfm', ['--extension', 'table', '--extension', 'autolink', '--extension', 'strikethrough'], { input: markdown, encoding: 'utf8' });
  check(!r.error && r.status === 0, `cmark-gfm failed (scripts/setup.sh installs it): ${r.error || r.stderr}`);
  return r.stdout;
}

// The tags GFM made of `markdown`: an image or a link is a finding.
export function activeTags(markdown) {
  const html = gfmHtml(markdown);
  return html.match(/<img\b[^>]*>|<a [^>]*>/g) || [];
}

export function securityTests() {
  return {
    async 'share links: a crafted fragment or ?url= runs nothing, shows as text and cannot hang the page'({ ctx, origin, tmp }) {
      // What a link brings is the link maker's text: the fragment's finding (f) and trace name (n),
      // and ?url=. Each must reach the page as text (the link prompt, the "not in this report"
      // note), never as markup or a navigation, and a huge fragment must not stall the page.
      const tags = () => document.querySelectorAll('img, script, iframe, object, embed').length; // the report draws svg charts
      const handlers = () => [...document.querySelectorAll('*')].filter((el) => [...el.attributes].some((a) => /^on/i.test(a.name))).length;
      const img = (n) => `<img src=x onerror="window.__xss=${n}">`;
      const frag = `#f=${encodeURIComponent(img(1) + '<script>window.__xss=2</script>')}&n=${encodeURIComponent(img(3) + 'trace.json')}&t=1,2&r=0`;
      const { page, log } = await openPage(ctx, origin, `/${frag}`);
      await page.waitForSelector('#link-prompt', { timeout: 30_000 });
      const before = await page.evaluate(tags);
      const prompt = await page.textContent('#link-prompt');
      check(prompt.includes(img(3) + 'trace.json'), `the link's trace name is not shown as text: ${prompt}`);
      check(prompt.includes(img(1)), `the link's finding is not shown as text: ${prompt}`);
      check((await page.evaluate(handlers)) === 0, 'an element with an on* attribute came from the link');
      // The trace the link names, its names hostile too: the view applies, the finding (absent from
      // this report) is named as text in the note under the title.
      const file = join(tmp, 'link-target.json');
      writeFileSync(file, hostileTrace(img(4)));
      check((await loadFile(page, file)) === 'ready', `the trace did not load: ${await page.textContent('#error')}`);
      const body = await page.evaluate(() => document.body.innerText);
      check(body.includes(img(1)), 'the linked finding is not named as text in the report');
      // A fragment of 0.8 MB (100,000 parts) and ranges of 400 digits: parsed in one pass, the page
      // answers after it, and nothing of it runs.
      const huge = `#${Array.from({ length: 100_000 }, (_, i) => `f=${i}`).join('&')}&t=${'9'.repeat(400)},${'9'.repeat(401)}&n=${encodeURIComponent(img(5))}`;
      await page.evaluate((x) => (location.hash = x), huge);
      await page.waitForFunction(() => location.hash.length > 500_000 && document.readyState === 'complete', null, { timeout: 30_000 });
      check(await page.evaluate(() => !!window.kinetoscope.report()), 'the page does not answer (or lost its report) after a 0.8 MB fragment');
      check((await page.evaluate(() => window.__xss)) === undefined, `markup from the link ran (window.__xss = ${await page.evaluate(() => window.__xss)})`);
      check((await page.evaluate(tags)) === before, 'an <img> or <script> from the link or the trace reached the DOM');
      check((await page.evaluate(handlers)) === 0, 'an element with an on* attribute came from the link or the trace');
      noErrors(log);
      await page.close();
      // ?url=javascript: and data: are refused with the URL shown as text, and nothing runs.
      for (const bad of ['javascript:window.__xss=6//x.json', `data:text/html,${img(7)}`]) {
        const { page: p2, log: log2 } = await openPage(ctx, origin, `/?url=${encodeURIComponent(bad)}`);
        await p2.waitForFunction(() => /bad_url|own origin/.test(document.querySelector('#error')?.textContent || ''), null, { timeout: 30_000 });
        const error = await p2.textContent('#error');
        check(error.includes(bad.slice(0, 20)), `the refused URL is not named as text: ${error}`);
        check((await p2.evaluate(() => window.__xss)) === undefined, `?url=${bad} ran`);
        check((await p2.evaluate(() => document.querySelectorAll('#error img, #error script, #error svg, #error iframe').length)) === 0, 'markup from ?url= reached the error banner');
        check(!log2.requests.some((r) => r.startsWith('javascript:') || r.startsWith('data:text/html')), `?url=${bad} was requested`);
        await p2.close();
      }
    },

    async 'Markdown export: hostile names render through cmark-gfm with no image and no link'({ ctx, origin, tmp }) {
      // The check itself finds what raw names make (so it can fail): one <img> and one <a> at least.
      const raw = activeTags(MARKDOWN_HOSTILE.map((n) => `| ${n} |`).join('\n'));
      check(raw.some((t) => t.startsWith('<img')) && raw.some((t) => t.startsWith('<a ')), `raw names made no tags: ${raw}`);
      const { page, log } = await openPage(ctx, origin);
      const file = join(tmp, 'markdown-hostile.json');
      writeFileSync(file, markdownHostileTrace());
      check((await loadFile(page, file)) === 'ready', 'the hostile trace did not load');
      // The "Markdown" button's download, as a user saves it.
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-export="markdown"]')]);
      const saved = readFileSync(await download.path(), 'utf8');
      check(MARKDOWN_HOSTILE.every((n) => saved.includes(n.slice(0, 4))), 'the names are not in the exported Markdown');
      const tags = activeTags(saved);
      check(tags.length === 0, `the exported Markdown renders active tags: ${tags.slice(0, 5).join(' ')}`);
      // "Copy findings" copies this text (exports() is what the buttons save).
      const findings = await page.evaluate(() => window.kinetoscope.exports().findingsMarkdown);
      check(findings.includes('## Findings'), 'no findings section to copy');
      const ftags = activeTags(findings);
      check(ftags.length === 0, `the copied findings render active tags: ${ftags.slice(0, 5).join(' ')}`);
      noErrors(log);
    },

    async 'embedding: unlisted and opaque hosts get nothing, a listed one its report, the user trace stays'({ ctx, origin, tmp }) {
      const other = origin.replace('127.0.0.1', 'localhost'); // another origin, same server
      const good = hostileTrace('embed');
      // The served page says who may frame it (serve.mjs; static hosts: docs/sharing.md).
      const csp = (await fetch(`${origin}/`)).headers.get('content-security-policy') || '';
      check(/frame-ancestors 'self'/.test(csp), `serve.mjs sends no frame-ancestors: ${csp}`);

      // 1. Not listed: no ready, no answer, nothing loaded.
      const h1 = await hostPage(ctx, `${other}/examples/embed/host.html`);
      const k1 = await openFromHost(h1, `${origin}/`);
      await waitFor(k1, () => !!window.kinetoscope);
      await postOpen(h1, origin, 'forged.json', good);
      await k1.waitForTimeout(1500);
      check((await got(h1)).length === 0, `an unlisted origin was answered: ${JSON.stringify(await got(h1))}`);
      check((await loads(k1)) === 0, 'an unlisted origin loaded a trace');
      await k1.close();

      // 2. Listed with ?embed=: ready and the report, at that exact origin.
      const k2 = await openFromHost(h1, `${origin}/?embed=${encodeURIComponent(other)}`);
      const log2 = [];
      k2.on('pageerror', (e) => log2.push(e.message));
      await waitFor(h1, () => window.__got.some((m) => m.type === 'kinetoscope-ready'));
      await postOpen(h1, origin, 'host.json', good);
      await waitFor(h1, () => window.__got.some((m) => m.type === 'kinetoscope-loaded'));
      let replies = (await got(h1)).filter((m) => m.type === 'kinetoscope-loaded');
      check(replies.length === 1 && replies[0].ok && replies[0].report && replies[0].origin === origin, `listed host: ${JSON.stringify(replies)}`);
      // The host may replace its own trace.
      await postOpen(h1, origin, 'host2.json', good);
      await waitFor(h1, () => window.__got.filter((m) => m.type === 'kinetoscope-loaded').length === 2);
      replies = (await got(h1)).filter((m) => m.type === 'kinetoscope-loaded');
      check(replies[1].ok, `the host could not replace its own trace: ${JSON.stringify(replies[1])}`);

      // 3. The user opens their own file: the host can no longer replace it, nor learn its name.
      const mine = join(tmp, 'secret-project-name.json');
      writeFileSync(mine, hostileTrace('mine'));
      check((await loadFile(k2, mine)) === 'ready', 'the user file did not load');
      await postOpen(h1, origin, 'forged.json', good);
      await waitFor(h1, () => window.__got.filter((m) => m.type === 'kinetoscope-loaded').length === 3);
      replies = (await got(h1)).filter((m) => m.type === 'kinetoscope-loaded');
      check(!replies[2].ok && replies[2].error.code === 'busy', `the user's trace was replaced: ${JSON.stringify(replies[2])}`);
      check(!JSON.stringify(await got(h1)).includes('secret-project-name'), "a reply named the user's file");
      check((await k2.title()).includes('secret-project-name'), `the page no longer shows the user's trace: ${await k2.title()}`);
      check(!log2.length, `errors: ${log2.join('; ')}`);
      await k2.close();
      await h1.close();

      // 4. An opaque origin (a file:// host) is refused, even when it lists itself.
      const hostFile = join(tmp, 'opaque-host.html');
      writeFileSync(hostFile, '<!doctype html><title>host</title><p>host</p>');
      const h3 = await hostPage(ctx, pathToFileURL(hostFile).href);
      const k3 = await openFromHost(h3, `${origin}/?embed=null&embed=file://`);
      await waitFor(k3, () => !!window.kinetoscope);
      await h3.evaluate(
        ([t]) => {
          const buffer = new TextEncoder().encode(t).buffer;
          window.__k.postMessage({ type: 'kinetoscope-open', name: 'opaque.json', buffer, wantReport: true }, '*', [buffer]);
        },
        [good],
      );
      await k3.waitForTimeout(1500);
      check((await got(h3)).length === 0, `an opaque host was answered: ${JSON.stringify(await got(h3))}`);
      check((await loads(k3)) === 0, 'an opaque host loaded a trace');
      await k3.close();
      await h3.close();
    },

    async 'embedding: a comparison, the ranks view and a load the user started are not replaced by the host'({ ctx, origin, tmp }) {
      const other = origin.replace('127.0.0.1', 'localhost');
      const host = await hostPage(ctx, `${other}/examples/embed/host.html`);
      const k = await openFromHost(host, `${origin}/?embed=${encodeURIComponent(other)}`);
      const errors = [];
      k.on('pageerror', (e) => errors.push(e.message));
      await waitFor(host, () => window.__got.some((m) => m.type === 'kinetoscope-ready'));
      const replies = async (n) => {
        await waitFor(host, (c) => window.__got.filter((m) => m.type === 'kinetoscope-loaded').length >= c, n);
        return (await got(host)).filter((m) => m.type === 'kinetoscope-loaded');
      };
      const a = hostileTrace('a');
      const b = hostileTrace('b');
      let answered = 0;
      // First, on a page that shows nothing yet: a load the user started and that is still
      // running, which the host's open would cancel.
      const events = [];
      for (let i = 0; i < 20_000; i++) events.push(`{"ph":"X","cat":"kernel","name":"k${i % 50}","pid":0,"tid":7,"ts":${i * 3},"dur":2}`);
      const bigFile = join(tmp, 'user-big.json');
      writeFileSync(bigFile, `{"traceEvents":[${events.join(',')}]}`);
      const before = await loads(k);
      // The worker gets the file 8 s late: the load is certainly still running when the host's
      // open comes (a big file alone raced a fast machine).
      await holdWorkerMessages(k, 8000);
      await k.setInputFiles('#file', bigFile);
      // The page sniffs the file's head (a fleet.json?) before the load starts: wait for it.
      await waitFor(k, () => document.body.dataset.state === 'loading', null, 5000).catch(() => {});
      check((await k.evaluate(() => document.body.dataset.state)) === 'loading', 'the user load was not running');
      await postOpen(host, origin, 'forged.json', a);
      const r = (await replies(++answered))[answered - 1];
      check(!r.ok && r.error && r.error.code === 'busy', `the host's open was taken during the user's load: ${JSON.stringify(r)}`);
      await k.evaluate(() => window.__releaseWorkers()); // the views below load at full speed
      check((await settled(k, before)) === 'ready', 'the user load did not finish');
      check(/user-big/.test(await k.title()), `the user's trace is not on screen: ${await k.title()}`);
      // Each view the user made, then an open from the host: `busy`, and the view stays.
      const views = {
        comparison: () => k.evaluate(([x, y]) => window.kinetoscope.compare(new File([x], 'before.json'), new File([y], 'after.json')).then(() => true), [a, b]),
        ranks: async () => {
          const files = ['rank0.json', 'rank1.json'].map((n, i) => {
            const f = join(tmp, n);
            writeFileSync(f, i ? b : a);
            return f;
          });
          const before = await loads(k);
          await k.setInputFiles('#file', files);
          return (await settled(k, before)) === 'ready';
        },
      };
      for (const [what, make] of Object.entries(views)) {
        check(await make(), `the ${what} did not load`);
        const title = await k.title();
        const before = await loads(k);
        await postOpen(host, origin, 'forged.json', a);
        const r = (await replies(++answered))[answered - 1];
        check(!r.ok && r.error && r.error.code === 'busy', `the host replaced the user's ${what}: ${JSON.stringify(r)}`);
        await k.waitForTimeout(500);
        check((await loads(k)) === before, `a load started over the user's ${what}`);
        check((await k.title()) === title, `the ${what} is no longer on screen: ${await k.title()}`);
      }
      check(!errors.length, `the page threw: ${errors.join('; ')}`);
      await k.close();
      await host.close();
    },

    async 'embedding: a host that navigates away during a load gets nothing at its next page, and nothing throws'({ ctx, origin, tmp }) {
      const other = origin.replace('127.0.0.1', 'localhost');
      // A third origin for the page the host goes to.
      const third = await startServeMjs(['--root', 'examples']);
      try {
        const host = await hostPage(ctx, `${other}/examples/embed/host.html`);
        const k = await openFromHost(host, `${origin}/?embed=${encodeURIComponent(other)}`);
        const errors = [];
        k.on('pageerror', (e) => errors.push(e.message));
        k.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
        await waitFor(host, () => window.__got.some((m) => m.type === 'kinetoscope-ready'));
        // A trace big enough to still be loading when the host leaves.
        const events = [];
        for (let i = 0; i < 200_000; i++) events.push(`{"ph":"X","cat":"kernel","name":"k${i % 50}","pid":0,"tid":7,"ts":${i * 3},"dur":2}`);
        const big = `{"traceEvents":[${events.join(',')}]}`;
        const before = await loads(k);
        await postOpen(host, origin, 'big.json', big);
        await host.goto(`${third.origin}/embed/host.html`);
        check((await settled(k, before)) === 'ready', 'the load did not finish');
        await k.waitForTimeout(1000);
        const after = await host.evaluate(() => window.__got);
        check(after.length === 0, `the host's next page got ${JSON.stringify(after).slice(0, 200)}`);
        check(!errors.length, `the page threw after its host left: ${errors.join('; ')}`);
        await k.close();
        await host.close();

        // The same from a file:// host (opaque: it could only be answered with '*'), which
        // leaves for another site during the load: that site must not receive the report.
        const hostFile = join(tmp, 'leaving-host.html');
        writeFileSync(hostFile, '<!doctype html><title>host</title><p>host</p>');
        const fh = await hostPage(ctx, pathToFileURL(hostFile).href);
        const fk = await openFromHost(fh, `${origin}/?embed=null`);
        fk.on('pageerror', (e) => errors.push(e.message));
        await waitFor(fk, () => !!window.kinetoscope);
        await fh.evaluate(
          ([t]) => {
            const buffer = new TextEncoder().encode(t).buffer;
            window.__k.postMessage({ type: 'kinetoscope-open', name: 'big.json', buffer, wantReport: true }, '*', [buffer]);
          },
          [big],
        );
        await fh.goto(`${third.origin}/embed/host.html`);
        await fk.waitForTimeout(3000);
        const leaked = await fh.evaluate(() => window.__got.filter((m) => m.type === 'kinetoscope-loaded'));
        check(leaked.length === 0, `the next site got the report of a file:// host's load: ${JSON.stringify(leaked).slice(0, 200)}`);
        check(!errors.length, `the page threw after its file:// host left: ${errors.join('; ')}`);
        await fk.close();
        await fh.close();

        // A sandboxed frame (an opaque origin, 'null') inside an allowed host opens the page,
        // sends a trace, and is sent to another site while the page loads it. A reply to '*' (the
        // only way to answer an opaque origin; the code before the fix did) reaches whatever
        // document that frame shows by then: here the other site. The page's messages to its
        // workers are held 4 s, so the load (of a small trace: the delay is what keeps it
        // running) is certainly still running when the frame has moved on.
        // Plain pages with no CSP (a frame may go anywhere, anyone may frame them): the outer
        // host at one origin, the site the frame goes to at another.
        const plain = createServer((req, res) => {
          res.writeHead(200, { 'Content-Type': 'text/html' });
          res.end('<!doctype html><title>plain</title><p>plain</p>');
        });
        await new Promise((r) => plain.listen(0, '127.0.0.1', r));
        const plainPort = plain.address().port;
        try {
          const outer = await hostPage(ctx, `http://127.0.0.1:${plainPort}/outer.html`);
          await outer.evaluate(() => {
            const f = document.createElement('iframe');
            f.name = 'sandboxed';
            f.setAttribute('sandbox', 'allow-scripts allow-popups allow-popups-to-escape-sandbox');
            f.srcdoc = '<!doctype html><p>sandboxed host</p>';
            document.body.append(f);
          });
          const frame = await (await outer.waitForSelector('iframe[name="sandboxed"]')).contentFrame();
          check(frame, 'no sandboxed frame');
          await frame.waitForLoadState();
          const [sk] = await Promise.all([ctx.waitForEvent('page'), frame.evaluate((u) => void (window.__k = window.open(u, '_blank')), `${origin}/?embed=${encodeURIComponent(`http://127.0.0.1:${plainPort}`)}`)]);
          sk.on('pageerror', (e) => errors.push(e.message));
          await waitFor(sk, () => !!window.kinetoscope);
          await holdWorkerMessages(sk, 4000);
          await frame.evaluate(
            ([t, o]) => {
              const buffer = new TextEncoder().encode(t).buffer;
              window.__k.postMessage({ type: 'kinetoscope-open', name: 'big.json', buffer, wantReport: true }, o, [buffer]);
            },
            [hostileTrace('sandboxed'), origin],
          );
          await frame.goto(`http://localhost:${plainPort}/next.html`);
          await sk.waitForTimeout(9000);
          const got = await frame.evaluate(() => (window.__got || []).map((m) => ({ origin: m.origin, type: m.type })));
          check(!got.some((m) => m.type === 'kinetoscope-loaded'), `the site the sandboxed host's frame went to got the report: ${JSON.stringify(got).slice(0, 200)}`);
          check(!errors.length, `the page threw after its sandboxed host left: ${errors.join('; ')}`);
          await sk.close();
          await outer.close();
        } finally {
          // close() alone waits for the browser's idle keep-alive connections (80+ s measured).
          plain.closeAllConnections();
          await new Promise((r) => plain.close(r));
        }
      } finally {
        third.proc.kill();
      }
    },

    async '?url= refuses a same-origin URL that redirects to another origin'({ ctx, origin }) {
      const rig = await redirectRig(origin, hostileTrace('redirected'));
      try {
        const { page, log } = await openPage(ctx, rig.origin, '/?url=/go%3Fto%3Dother');
        await waitFor(page, () => ['ready', 'error'].includes(document.body.dataset.state), null, 30_000);
        const state = await page.evaluate(() => document.body.dataset.state);
        const error = await page.textContent('#error');
        check(state === 'error', `a redirect to another origin was followed (state ${state})`);
        check(/redirect/i.test(error), `unclear message for a redirect: ${error}`);
        check(rig.hits() === 0, `the other origin was fetched ${rig.hits()} times`);
        log.errors = log.errors.filter((e) => !/redirect|Failed to fetch|ERR_/.test(e));
        noErrors(log);
        await page.close();
      } finally {
        await rig.close();
      }
    },

    async 'hidden characters in names reach no text, attribute, status line or title, in any view'({ ctx, origin, tmp }) {
      const a = join(tmp, `rank-0 ${RLO}evil\u200b.json`);
      const b = join(tmp, `rank-1 ${RLO}evil\u2066.json`);
      writeFileSync(a, hostileTrace('a'));
      writeFileSync(b, hostileTrace('b'));
      const { page, log } = await openPage(ctx, origin);
      // The report.
      check((await loadFile(page, a)) === 'ready', 'the hostile trace did not load');
      checkNoHidden(await pageText(page), 'report');
      // The timeline tab, when this build has one.
      const tab = await page.$('[data-tab="timeline"], #tab-timeline, button:has-text("Timeline")');
      if (tab) {
        await tab.click();
        await page.waitForTimeout(500);
        checkNoHidden(await pageText(page), 'timeline');
      }
      // Two ranks.
      let before = await loads(page);
      await page.setInputFiles('#file', [a, b]);
      check((await settled(page, before)) === 'ready', `the ranks did not load: ${await page.textContent('#error')}`);
      checkNoHidden(await pageText(page), 'ranks');
      // Compare.
      before = await loads(page);
      await page.click('#compare-open');
      await page.setInputFiles('#compare-base', a);
      await page.setInputFiles('#compare-test', b);
      check((await settled(page, before)) === 'ready', `the comparison did not finish: ${await page.textContent('#error')}`);
      checkNoHidden(await pageText(page), 'compare');
      noErrors(log);
      await page.close();
    },
  };
}
