// The roofsim ui in a real browser (Debian's chromium, driven by playwright-core from ui/node_modules).
//   node tests/ui/ui_test.mjs ROOFSIM_BINARY PYTHON_MODULE_DIR [ARTIFACTS_DIR]
// Starts `roofsim ui` on a free port, sets a model and batch in the page, checks TTFT, TPOT and
// throughput shown equal `roofsim run --json` for the same settings, doubles the bandwidth in the
// what-if and checks decode gets faster, uploads broken files, opens two tabs simulating at once,
// sends malformed requests to the API, and reloads a shared URL. Screenshots go to ARTIFACTS_DIR.
import {execFile, spawn} from 'node:child_process';
import {createRequire} from 'node:module';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {promisify} from 'node:util';

const here = path.dirname(fileURLToPath(import.meta.url));
const uiDir = path.resolve(here, '../../ui');
const [roofsimBin, moduleDir, artifactsArg] = process.argv.slice(2);
if (!roofsimBin || !moduleDir) {
  console.error('usage: node ui_test.mjs ROOFSIM_BINARY PYTHON_MODULE_DIR [ARTIFACTS_DIR]');
  process.exit(2);
}
const artifacts = path.resolve(artifactsArg || 'ui-test-artifacts');
fs.mkdirSync(artifacts, {recursive: true});
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
let chromium;
try {
  ({chromium} = createRequire(path.join(uiDir, 'package.json'))('playwright-core'));
} catch (e) {
  console.error('ui_test: playwright-core is not installed in ui/node_modules (scripts/install-deps.sh runs npm ci --prefix ui)');
  process.exit(1);
}
if (!fs.existsSync(chromiumPath)) {
  console.error(`ui_test: no browser at ${chromiumPath} (apt-get install chromium, or set CHROMIUM)`);
  process.exit(1);
}

const t0 = Date.now();
const log = (...a) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1)}s]`, ...a);
let failures = 0;
function check(ok, what, detail = '') {
  if (ok) log('ok  ', what);
  else { failures++; log('FAIL', what, detail); }
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); });
  });
}

// The page's formatting (ui/static/app.js: fmtMs, fmtRate), applied to the CLI's numbers.
const fmtMs = (s) => (s * 1e3).toFixed(3) + ' ms';
const fmtRate = (x) => x.toFixed(1);

const MODEL = 'llama-2-7b', BATCH = 4, PROMPT = 64, GEN = 6;

async function main() {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = spawn(roofsimBin, ['ui', '--port', String(port)], {
    env: {...process.env, ROOFSIM_PYTHON_DIR: path.resolve(moduleDir)}, stdio: ['ignore', 'pipe', 'pipe']});
  let serverOut = '';
  server.stdout.on('data', (d) => { serverOut += d; });
  server.stderr.on('data', (d) => { serverOut += d; });
  const cli = promisify(execFile)(roofsimBin, ['run', '--model', MODEL, '--batch', String(BATCH), '--prompt', String(PROMPT),
    '--gen', String(GEN), '--json', '-'], {maxBuffer: 64 << 20}).then(({stdout}) => JSON.parse(stdout));
  let browser;
  try {
    for (let i = 0; !serverOut.includes('serving'); i++) {
      if (server.exitCode !== null || i > 200) throw new Error('roofsim ui did not start:\n' + serverOut);
      await new Promise((r) => setTimeout(r, 100));
    }
    log('server up:', serverOut.trim());
    browser = await chromium.launch({executablePath: chromiumPath, args: ['--no-sandbox']});
    const page = await browser.newPage({viewport: {width: 1400, height: 1000}});
    const pageErrors = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(base + '/');
    await page.waitForSelector('body[data-ready="1"]', {timeout: 20000});
    check(await page.locator('#chart svg').count() > 0, 'the page loads and draws the analytic roofline');

    // Settings: model, batch and lengths; the analytic numbers follow at once.
    await page.selectOption('#model', MODEL);
    for (const [id, v] of [['#batch', BATCH], ['#prompt', PROMPT], ['#gen', GEN]]) await page.fill(id, String(v));
    await page.waitForFunction(([b, m]) => {
      const a = window.roofsimState.analysis;
      return a && a.batch === b && a.model && a.model.toLowerCase().includes(m);
    }, [BATCH, 'llama-2-7b'], {timeout: 20000});
    const ridge = await page.textContent('[data-k="ridge"]');
    check(/FLOP\/B/.test(ridge), 'analytic ridge shown', ridge);
    check((await page.textContent('[data-k="memory"]')).includes('of'), 'memory per chip shown');

    // Simulate and compare with the CLI.
    await page.click('#simulate');
    await page.waitForFunction(() => document.getElementById('m-ttft-sim').textContent !== '–', null, {timeout: 60000});
    const run = await cli;
    const shown = {};
    for (const m of ['ttft', 'tpot', 'throughput', 'decode']) {
      shown[m] = {sim: await page.textContent(`#m-${m}-sim`), bound: await page.textContent(`#m-${m}-bound`)};
    }
    check(shown.ttft.sim === fmtMs(run.ttft_s), 'TTFT equals roofsim run --json', `${shown.ttft.sim} vs ${fmtMs(run.ttft_s)}`);
    check(shown.tpot.sim === fmtMs(run.tpot_s), 'TPOT equals roofsim run --json', `${shown.tpot.sim} vs ${fmtMs(run.tpot_s)}`);
    check(shown.throughput.sim === fmtRate(run.throughput_tok_s), 'throughput equals roofsim run --json',
      `${shown.throughput.sim} vs ${fmtRate(run.throughput_tok_s)}`);
    check(shown.ttft.bound === fmtMs(run.bound_ttft_s) && shown.tpot.bound === fmtMs(run.bound_tpot_s), 'bounds equal the CLI\'s',
      JSON.stringify(shown));
    const chart = await page.evaluate(() => {
      const s = window.roofsimState, a = s.analysis;
      const ops = s.result.ops.filter((o) => o.flops > 0 && o.sim_time_s > 0);
      const above = ops.filter((o) => o.flops / o.sim_time_s > Math.min(a.peak_flops, a.bandwidth * o.intensity) * 1.0001);
      return {points: document.querySelectorAll('#chart svg .mark-symbol.role-mark path').length, ops: ops.length,
        phases: [...new Set(ops.map((o) => o.phase))], above: above.map((o) => o.name)};
    });
    check(chart.points === chart.ops && chart.ops > 10, 'every op is a point on the chart', JSON.stringify(chart));
    check(chart.phases.includes('prefill') && chart.phases.includes('decode'), 'prefill and decode ops both drawn');
    check(chart.above.length === 0, 'simulated points lie on or below the roofs', chart.above.join(', '));
    const rows = await page.locator('#ops tbody tr').count();
    check(rows === run.ops.length, 'the op table has a row per op', `${rows} vs ${run.ops.length}`);
    await page.screenshot({path: path.join(artifacts, '1-simulated.png'), fullPage: true});
    await page.hover('#chart svg .mark-symbol.role-mark path >> nth=-1', {timeout: 5000, force: true});
    await page.waitForSelector('#vg-tooltip-element.visible', {timeout: 5000}).catch(() => {});
    const tip = await page.locator('#vg-tooltip-element').textContent().catch(() => '');
    check(/FLOP/.test(tip) && /of roof/.test(tip), 'hovering a point shows its FLOPs, bytes, time and % of roof', tip.slice(0, 120));

    // What-if: twice the bandwidth; only the variant runs (the base is kept).
    await page.fill('#wi-bw', '2');
    await page.waitForFunction(() => window.roofsimState.analysisVar, null, {timeout: 20000});
    await page.click('#simulate');
    await page.waitForFunction(() => document.getElementById('m-tpot-var').textContent !== '–', null, {timeout: 60000});
    const ms = (t) => parseFloat(t);
    const tpotVar = ms(await page.textContent('#m-tpot-var')), tpotBase = ms(await page.textContent('#m-tpot-sim'));
    const ttftVar = ms(await page.textContent('#m-ttft-var')), ttftBase = ms(await page.textContent('#m-ttft-sim'));
    check(tpotVar < tpotBase / 1.3, 'twice the bandwidth: decode gets faster', `TPOT ${tpotBase} -> ${tpotVar} ms`);
    log(`     prefill ${ttftBase} -> ${ttftVar} ms (x${(ttftBase / ttftVar).toFixed(2)}), decode x${(tpotBase / tpotVar).toFixed(2)}`);
    check(await page.locator('#ops thead th', {hasText: 'speed-up'}).count() === 1, 'per-op speed-ups shown');
    const variantPoints = await page.evaluate(() => window.roofsimState.resultVar.ops.filter((o) => o.flops > 0).length);
    check(await page.locator('#chart svg .mark-symbol.role-mark path').count() === chart.points + variantPoints, 'base and variant drawn together');
    await page.screenshot({path: path.join(artifacts, '2-whatif.png'), fullPage: true});
    const sharedUrl = page.url();
    check(/model=llama-2-7b/.test(sharedUrl) && /batch=4/.test(sharedUrl) && /bw=2/.test(sharedUrl), 'the URL holds the settings', sharedUrl);

    // Exports.
    const dl = async (id) => {
      const [d] = await Promise.all([page.waitForEvent('download'), page.click(id)]);
      const file = path.join(artifacts, d.suggestedFilename());
      await d.saveAs(file);
      return fs.readFileSync(file);
    };
    const csv = (await dl('#export-csv')).toString();
    check(csv.startsWith('phase,name,class') && csv.trim().split('\n').length === run.ops.length + 1, 'CSV export: a row per op');
    const json = JSON.parse((await dl('#export-json')).toString());
    check(json.result && json.result.ttft_s === run.ttft_s && json.variant && json.variant.result, 'JSON export holds base and variant runs');
    check((await dl('#export-svg')).toString().includes('<svg'), 'SVG export');
    check((await dl('#export-png')).subarray(1, 4).toString() === 'PNG', 'PNG export');

    // Bad uploads: a clear message, the chart stays.
    await page.setInputFiles('#model-file', {name: 'config.json', mimeType: 'application/json', buffer: Buffer.from('{"hidden_size": 4096,')});
    await page.waitForSelector('#message.error', {timeout: 20000});
    const badModel = await page.textContent('#message');
    check(/config\.json/.test(badModel) && !/\/tmp\//.test(badModel), 'a broken config.json gets a message naming it', badModel);
    await page.setInputFiles('#hw-file', {name: 'chip.toml', mimeType: 'text/plain', buffer: Buffer.from('[hbm]\nbandwidth_gb_per_s = -5\n')});
    await page.waitForFunction(() => /chip\.toml/.test(document.getElementById('message').textContent), null, {timeout: 20000});
    check(true, 'a broken hardware TOML gets a message: ' + (await page.textContent('#message')).slice(0, 100));
    check(await page.locator('#chart svg').count() > 0, 'the chart is still there after bad uploads');
    await page.screenshot({path: path.join(artifacts, '3-bad-upload.png'), fullPage: true});

    // Impossible settings: a message and a chart placeholder saying why, never a blank chart.
    await page.fill('#tp', '3');
    await page.waitForSelector('#chart .chart-empty', {timeout: 20000});
    const tpMessage = await page.textContent('#message');
    check(/tp|divide/i.test(tpMessage), 'tp 3 is refused with a message', tpMessage);
    await page.screenshot({path: path.join(artifacts, '4-impossible.png'), fullPage: true});
    await page.fill('#tp', '1');

    // A good upload: a Hugging Face config.json of a small model.
    const cfg = {architectures: ['LlamaForCausalLM'], model_type: 'llama', hidden_size: 1024, intermediate_size: 2816,
      num_attention_heads: 16, num_key_value_heads: 4, num_hidden_layers: 8, vocab_size: 32000, max_position_embeddings: 4096};
    await page.setInputFiles('#model-file', {name: 'tiny.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(cfg))});
    await page.waitForFunction(() => document.getElementById('model').value.startsWith('upload:') && window.roofsimState.analysis &&
      window.roofsimState.analysis.ops.length > 0, null, {timeout: 20000});
    check(true, 'an uploaded config.json is analyzed');

    // Two tabs simulating at once: the shared URL (base and variant, two processes) and another batch.
    const [a, b] = [await browser.newPage({viewport: {width: 1400, height: 1000}}), await browser.newPage()];
    for (const p of [a, b]) p.on('pageerror', (e) => pageErrors.push(e.message));
    await Promise.all([a.goto(sharedUrl.replace(/batch=4/, 'batch=4')), b.goto(`${base}/?model=${MODEL}&batch=8&prompt=${PROMPT}&gen=${GEN}&run=1`)]);
    const done = (p, id) => p.waitForFunction((i) => document.getElementById(i).textContent !== '–', id, {timeout: 60000});
    await Promise.all([done(a, 'm-tpot-var'), done(b, 'm-tpot-sim')]);
    check(await a.inputValue('#model') === MODEL && await a.inputValue('#batch') === String(BATCH) && await a.inputValue('#wi-bw') === '2',
      'the shared URL restores the settings');
    check(await a.textContent('#m-ttft-sim') === fmtMs(run.ttft_s), 'the restored view simulates the same TTFT');
    const tpotB = parseFloat(await b.textContent('#m-tpot-sim'));
    check(tpotB > 0 && (await b.textContent('#m-tpot-sim')) !== (await a.textContent('#m-tpot-sim')), 'the second tab ran its own batch', String(tpotB));
    await a.screenshot({path: path.join(artifacts, '5-restored.png'), fullPage: true});

    // Cancel: a longer run, cancelled while it runs.
    await b.fill('#prompt', '2048');
    await b.fill('#gen', '2000');
    await b.waitForFunction(() => window.roofsimState.analysis && window.roofsimState.analysis.generate === 2000, null, {timeout: 20000})
      .catch(async (e) => { throw new Error(`${e.message}; page says: ${await b.textContent('#message')}; errors: ${pageErrors.join('; ')}`); });
    await b.click('#simulate');
    await b.waitForFunction(() => !document.getElementById('cancel').disabled, null, {timeout: 10000});
    await b.click('#cancel');
    await b.waitForFunction(() => document.getElementById('progress-text').textContent === 'cancelled', null, {timeout: 20000});
    check(true, 'a running simulation is cancelled');

    check(pageErrors.length === 0, 'no JavaScript errors', pageErrors.join('; '));
    await apiChecks(base);
  } finally {
    if (browser) await browser.close();
    server.kill('SIGTERM');
    await new Promise((r) => { if (server.exitCode !== null) r(); else { server.on('exit', r); setTimeout(r, 3000); } });
  }
}

// Malformed requests: each gets its status and a message; the server answers afterwards.
async function apiChecks(base) {
  const post = (p, body, type = 'application/json') => fetch(base + p, {method: 'POST', headers: {'Content-Type': type}, body});
  const cases = [
    ['bad JSON', () => post('/api/analyze', '{"settings": {'), 400],
    ['not an object', () => post('/api/analyze', '[1, 2]'), 400],
    ['NaN', () => post('/api/analyze', '{"settings": {"batch": NaN}}'), 400],
    ['unknown key', () => post('/api/analyze', '{"settings": {"bacth": 4}}'), 400],
    ['wrong type', () => post('/api/analyze', '{"settings": {"batch": "four"}}'), 400],
    ['huge number', () => post('/api/analyze', '{"settings": {"batch": 123456789012345678901234567890}}'), 400],
    ['huge float', () => post('/api/analyze', '{"settings": {"prompt": 1e308}}'), 400],
    ['nested object', () => post('/api/jobs', '{"settings": {"batch": {"a": [1]}}}'), 400],
    ['a path as hw', () => post('/api/jobs', '{"settings": {"hw": "/etc/passwd"}}'), 400],
    ['bad edits', () => post('/api/jobs', '{"settings": {}, "edits": {"scale": {"hbm.bandwidth": -1}}}'), 400],
    ['unknown hardware key', () => post('/api/analyze', '{"settings": {}, "edits": {"set": {"hbm.nothing": 1}}}'), 400],
    ['does not fit', () => post('/api/jobs', '{"settings": {"model": "llama-2-70b", "batch": 64}}'), 202],
    ['text/plain body', () => post('/api/analyze', '{}', 'text/plain'), 415],
    ['empty upload', () => post('/api/upload', '{"kind": "model", "text": ""}'), 400],
    ['unknown job', () => fetch(base + '/api/jobs/99999'), 404],
    ['unknown path', () => fetch(base + '/../../etc/passwd'), 404],
    ['unknown static', () => fetch(base + '/static/..%2F..%2Fserver.py'), 404],
  ];
  for (const [what, req, status] of cases) {
    const r = await req();
    const body = await r.json().catch(() => ({}));
    check(r.status === status && (status < 400 || (typeof body.error === 'string' && body.error.length > 0)),
      `API ${what}: ${r.status}`, `expected ${status}: ${JSON.stringify(body).slice(0, 200)}`);
    if (what === 'does not fit') {
      let v;
      for (let i = 0; i < 100; i++) {
        v = await (await fetch(`${base}/api/jobs/${body.id}`)).json();
        if (v.state !== 'running') break;
        await new Promise((res) => setTimeout(res, 100));
      }
      check(v.state === 'error' && /does not fit/.test(v.error), 'a run that does not fit ends with its message', v.error);
    }
  }
  const sock = await new Promise((resolve) => {
    const s = net.connect(Number(new URL(base).port), '127.0.0.1', () => { s.end('GARBAGE\r\n\r\n'); });
    s.on('data', () => {}); s.on('close', resolve); s.on('error', resolve);
  });
  void sock;
  const ok = await fetch(base + '/api/presets');
  check(ok.status === 200 && (await ok.json()).models.includes(MODEL), 'the server still answers after malformed requests');
  const good = await (await post('/api/analyze', JSON.stringify({settings: {model: MODEL, batch: BATCH, prompt: PROMPT, gen: GEN}}))).json();
  const run = await (await fetch(base + '/api/presets')).ok;
  check(run && good.bound_ttft_s > 0, 'and still analyzes');
}

main().then(() => {
  log(failures ? `${failures} check(s) failed` : 'all checks passed', `(${((Date.now() - t0) / 1000).toFixed(1)} s; screenshots in ${artifacts})`);
  process.exit(failures ? 1 : 0);
}, (e) => {
  log('FAIL', e.stack || e);
  process.exit(1);
});
