// Are the browsers the tests drive new enough for the pinned playwright-core? Every browser test
// calls requireBrowsers() before it starts one; scripts/setup.sh runs this file to upgrade them.
//
//   node tests/browser/browsers.mjs [chromium] [firefox]    exit 0 when each is new enough, else 1
//
// The versions needed are those of playwright-core's own browsers.json (the browser builds that
// release was made and tested with): an older browser lacks protocol commands it sends. Seen: the
// firefox-esr 140 of an un-upgraded Debian 12 point release answers playwright-core 1.57's first
// WebDriver BiDi commands with "Protocol error (network.addDataCollector): unknown command".
// Newer browsers are fine (Debian's security archive carries current chromium and firefox-esr).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
export const FIREFOX = process.env.FIREFOX || '/usr/bin/firefox-esr';
const PACKAGES = { chromium: 'chromium', firefox: 'firefox-esr' };
const UPGRADE =
  'apt-get update && apt-get install --only-upgrade chromium firefox-esr ' +
  "(with Debian's security archive, bookworm-security, in the apt sources; or run scripts/setup.sh)";

// { version of playwright-core, { chromium: major, firefox: major } } from its browsers.json.
export function neededVersions() {
  const require = createRequire(import.meta.url);
  let dir;
  try {
    dir = dirname(require.resolve('playwright-core/package.json'));
  } catch {
    throw new Error('playwright-core is not installed (node_modules/): run scripts/setup.sh, or npm install');
  }
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const { browsers } = JSON.parse(readFileSync(join(dir, 'browsers.json'), 'utf8'));
  const major = (name) => Number(browsers.find((b) => b.name === name).browserVersion.split('.')[0]);
  return { playwright: pkg.version, need: { chromium: major('chromium'), firefox: major('firefox') } };
}

// "Chromium 156.0.8078.114 built on Debian..." / "Mozilla Firefox 153.8.0esr" -> "156.0.8078.114".
export function installedVersion(executable) {
  if (!existsSync(executable)) return null;
  const out = execFileSync(executable, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 30_000 });
  const m = /(\d+)\.(\d+)[\w.]*/.exec(out);
  if (!m) throw new Error(`${executable} --version printed no version: ${out.trim()}`);
  return m[0];
}

// Problems (strings) for the named browsers ('chromium', 'firefox'), none when all are fine.
export function browserProblems(names, paths = { chromium: CHROMIUM, firefox: FIREFOX }) {
  const { playwright, need } = neededVersions();
  const problems = [];
  for (const name of names) {
    const path = paths[name];
    const found = installedVersion(path);
    if (!found) {
      problems.push(`${name}: ${path} is absent; install it: apt-get install ${PACKAGES[name]} (or run scripts/setup.sh)`);
    } else if (Number(found.split('.')[0]) < need[name]) {
      problems.push(
        `${name}: ${path} is version ${found}, playwright-core ${playwright} needs ${name} ${need[name]} or newer; upgrade it: ${UPGRADE}`,
      );
    }
  }
  return problems;
}

// Throws one error naming every browser that is absent or too old (the browser tests call this
// first, so they stop with this message instead of a protocol error deep inside playwright-core).
export function requireBrowsers(names, paths) {
  const problems = browserProblems(names, paths);
  if (problems.length) throw new Error(`the browsers the tests drive are not usable:\n  ${problems.join('\n  ')}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const names = process.argv.slice(2).length ? process.argv.slice(2) : ['chromium', 'firefox'];
  try {
    const problems = browserProblems(names);
    if (problems.length) {
      console.error(problems.join('\n'));
      process.exit(1);
    }
    const { playwright, need } = neededVersions();
    const found = (n) => installedVersion(n === 'chromium' ? CHROMIUM : FIREFOX);
    console.log(`browsers: ${names.map((n) => `${n} ${found(n)} (needs ${need[n]}+)`).join(', ')} for playwright-core ${playwright}`);
  } catch (e) {
    console.error(e.message);
    process.exit(1);
  }
}
