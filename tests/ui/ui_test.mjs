// The roofsim ui in a real browser (Debian's chromium, driven by playwright-core from ui/node_modules).
//   node tests/ui/ui_test.mjs ROOFSIM_BINARY PYTHON_MODULE_DIR [ARTIFACTS_DIR]
// Starts `roofsim ui` on a free port, sets a model and batch in the page, checks TTFT, TPOT and
// throughput shown equal `roofsim run --json` for the same settings, doubles the bandwidth in the
// what-if and checks decode gets faster, uploads broken files, opens two tabs simulating at once,
// sends malformed requests to the API, and reloads a shared URL. Screenshots go to ARTIFACTS_DIR.
import {execFile, spawn} from 'node:child_process';
import {createRequire} from 'node:module';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
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

// The done-when: Llama-3-8B on the H100, prefill right of the ridge (512 tokens), decode left.
const MODEL = 'llama-3-8b', BATCH = 4, PROMPT = 512, GEN = 6;
// The other views' formatting (ui/static/app.js fmtTime, ui/static/views.js fmtBw).
const fmtTime = (s) => (s < 1e-3 ? (s * 1e6).toPrecision(3) + ' µs' : s < 1 ? (s * 1e3).toPrecision(4) + ' ms' : s.toPrecision(4) + ' s');
const fmtBw = (x) => (x / 1e9).toPrecision(4) + ' GB/s';
// A collective (64 MiB all-reduce on 8 chips behind a switch, a bytes sweep 1 KiB..1 MiB) and a
// short serve, each also run by the CLI.
const COLL = {topology: 'switch:8', op: 'allreduce', bytes: 64 << 20};
const SERVE = {concurrency: 8, requests: 16, prompt: 128, output: 8};

async function main() {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // The sweeps view reads a temporary folder: a copy of a sweep file whose store the test fills.
  const sweepsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'roofsim-ui-sweeps-'));
  fs.copyFileSync(path.resolve(here, '../../configs/sweeps/bandwidth-vs-batch.toml'), path.join(sweepsDir, 'bandwidth-vs-batch.toml'));
  fs.writeFileSync(path.join(sweepsDir, 'not-run-yet.toml'), '[base]\nmodel = "llama-3-8b"\n[grid]\nbatch = [1, 2]\n');
  const run = (args) => promisify(execFile)(roofsimBin, args, {maxBuffer: 64 << 20});
  const swept = run(['sweep', path.join(sweepsDir, 'bandwidth-vs-batch.toml'), '-j', '1']);
  const server = spawn(roofsimBin, ['ui', '--port', String(port), '--sweeps-dir', sweepsDir], {
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
    await page.waitForSelector('body[data-ready="1"]', {timeout: 60000});
    check(await page.locator('#chart svg').count() > 0, 'the page loads and draws the analytic roofline');
    // The form's choices and defaults are the declared settings' (`roofsim settings --json`).
    const declared = JSON.parse((await promisify(execFile)(roofsimBin, ['settings', '--json', '-'])).stdout).domains;
    const runSetting = (name) => declared.run.settings.find((s) => s.name === name);
    const form = await page.evaluate(() => ({
      attention: [...document.querySelectorAll('#attention option')].map((o) => o.value),
      weights: document.getElementById('weights_dtype').value, batch: document.getElementById('batch').value,
      prompt: document.getElementById('s-prompt').value, load: document.getElementById('s-load').value}));
    check(JSON.stringify(form.attention) === JSON.stringify(runSetting('attention').choices), 'every attention kernel the CLI takes is offered',
      form.attention.join(','));
    check(form.weights === '' && form.batch === runSetting('batch').default, 'the dtypes default to the checkpoint\'s and the batch to run\'s default',
      JSON.stringify(form));
    const serving = Object.fromEntries(declared.serving.settings.map((s) => [s.name, s.default]));
    check(form.prompt === serving.prompt && form.load === serving.rate, 'the serve form starts at serve\'s default workload', JSON.stringify(form));
    const runMore = await page.evaluate(() => {
      const fields = [...document.querySelectorAll('#more-fields .field input, #more-fields .field select')].map((el) => el.id.slice(2));
      document.getElementById('x-decode_stride').value = '4';
      const sent = settings().decode_stride;
      document.getElementById('x-decode_stride').value = '';
      return {fields, sent};
    });
    const onForm = ['hw', 'model', 'batch', 'prompt', 'gen', 'weights_dtype', 'activations_dtype', 'kv_dtype', 'tp', 'pp', 'ep', 'topology',
      'attention', 'near_memory'];
    check(declared.run.settings.every((d) => onForm.includes(d.name) || runMore.fields.includes(d.name)) && runMore.sent === 4,
      'every run setting is on the inference form or under More settings, and a generated one is sent', JSON.stringify(runMore));

    // Settings: model, batch and lengths; the analytic numbers follow at once.
    await page.selectOption('#model', MODEL);
    for (const [id, v] of [['#batch', BATCH], ['#prompt', PROMPT], ['#gen', GEN]]) await page.fill(id, String(v));
    await page.waitForFunction(([b, m]) => {
      const a = window.roofsimState.analysis;
      return a && a.batch === b && a.model && a.model.toLowerCase().includes(m);
    }, [BATCH, MODEL], {timeout: 60000});
    const ridge = await page.textContent('[data-k="ridge"]');
    check(/FLOP\/B/.test(ridge), 'analytic ridge shown', ridge);
    const memory = await page.textContent('[data-k="memory"]');
    check(/ of 80\.00 GB /.test(memory), 'memory per chip shown in the CLI\'s units (the H100\'s 80.00 GB, not 74.5 GiB)', memory);

    // Simulate and compare with the CLI. Explaining each op's gap (seven runs) is asked for, not the default.
    check(!(await page.isChecked('#explain-gap')), 'explaining the gaps is off by default (one run, not seven)');
    await page.check('#explain-gap');
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
    // Energy from the run's events: the CLI's tokens per joule and watts.
    const tokensJ = await page.textContent('#m-tokensj-sim'), watts = await page.textContent('#m-power-sim');
    check(tokensJ === run.tokens_per_j.toFixed(2) && watts === run.avg_power_w.toFixed(0), 'tokens/J and W per chip equal roofsim run --json',
      `${tokensJ} ${watts} vs ${run.tokens_per_j} ${run.avg_power_w}`);
    // Silicon and cost: the CLI's tokens/s per 1,000 USD of chips.
    const perKusd = await page.textContent('#m-kusd-sim');
    check(perKusd === run.tokens_per_s_per_kusd.toFixed(1), 'tokens/s per 1,000 USD equals roofsim run --json',
      `${perKusd} vs ${run.tokens_per_s_per_kusd}`);
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
    // Per layer: a simulated bar and a bound tick (both rect marks) per layer and phase, from the run's layers.
    await page.waitForFunction((n) => document.querySelectorAll('#layers-chart svg .mark-rect path').length === n,
      4 * run.layers.length, {timeout: 60000}).catch(() => {});
    const layerMarks = await page.locator('#layers-chart svg .mark-rect path').count();
    check(run.layers.length > 0 && layerMarks === 4 * run.layers.length, 'the per-layer view has a bar and a bound per layer and phase',
      `${layerMarks} marks for ${run.layers.length} layers`);
    // Operator graph: drawn by Graphviz on request, prefill's GEMMs compute-bound (orange), decode's memory-bound (blue).
    await page.click('#graph-draw');
    await page.waitForSelector('#graph-view svg', {timeout: 60000});
    const graph = await page.evaluate(() => {
      const svg = document.querySelector('#graph-view svg');
      return {text: svg.textContent, orange: svg.querySelectorAll('[fill="#f4a582"]').length, blue: svg.querySelectorAll('[fill="#92c5de"]').length};
    });
    check(/layer0\.qkv/.test(graph.text) && /prefill/.test(graph.text) && /decode step 1/.test(graph.text) && /layers 1-31/.test(graph.text),
      'the operator graph shows layer 0 of prefill and decode and folds the rest', graph.text.slice(0, 200));
    check(graph.orange >= 3 && graph.blue > graph.orange, 'the graph fills ops by their roof', `${graph.orange} orange, ${graph.blue} blue`);
    await page.locator('#graph-view').screenshot({path: path.join(artifacts, '1-graph.png')});
    const opsFit = await page.evaluate(() => { const t = document.getElementById('ops'); return [t.scrollWidth, t.parentElement.clientWidth]; });
    check(opsFit[0] <= opsFit[1], 'the op table fits its panel at 1400 px (no column cut off)', `${opsFit[0]} px in ${opsFit[1]}`);
    const rows = await page.locator('#ops tbody tr').count();
    check(rows === run.ops.length, 'the op table has a row per op', `${rows} vs ${run.ops.length}`);
    await page.screenshot({path: path.join(artifacts, '1-simulated.png'), fullPage: true});
    await page.hover('#chart svg .mark-symbol.role-mark path >> nth=-1', {timeout: 60000, force: true});
    await page.waitForSelector('#vg-tooltip-element.visible', {timeout: 60000}).catch(() => {});
    const tip = await page.locator('#vg-tooltip-element').textContent().catch(() => '');
    check(/FLOP/.test(tip) && /of roof/.test(tip), 'hovering a point shows its FLOPs, bytes, time and % of roof', tip.slice(0, 120));
    check(/shape/.test(tip) && /above the bound: /.test(tip), 'the hover shows the op\'s shape and what its gap is made of',
      tip.slice(0, 400));
    const gaps = await page.evaluate(() => window.roofsimState.result.ops.filter((o) => o.gap).length);
    check(gaps === run.ops.length, 'every op of the base run carries its gap parts (roofsim explain)', `${gaps} of ${run.ops.length}`);

    // What-if: twice the bandwidth; only the variant runs (the base is kept).
    await page.fill('#wi-bw', '2');
    await page.waitForFunction(() => window.roofsimState.analysisVar, null, {timeout: 60000});
    await page.click('#simulate');
    await page.waitForFunction(() => document.getElementById('m-tpot-var').textContent !== '–', null, {timeout: 60000});
    const ms = (t) => parseFloat(t);
    const tpotVar = ms(await page.textContent('#m-tpot-var')), tpotBase = ms(await page.textContent('#m-tpot-sim'));
    const ttftVar = ms(await page.textContent('#m-ttft-var')), ttftBase = ms(await page.textContent('#m-ttft-sim'));
    check(tpotVar < tpotBase / 1.5, 'twice the bandwidth: decode gets faster', `TPOT ${tpotBase} -> ${tpotVar} ms`);
    check(ttftVar > ttftBase / 1.15, 'twice the bandwidth: compute-bound prefill stays (under 15% faster)', `TTFT ${ttftBase} -> ${ttftVar} ms`);
    log(`     prefill ${ttftBase} -> ${ttftVar} ms (x${(ttftBase / ttftVar).toFixed(2)}), decode x${(tpotBase / tpotVar).toFixed(2)}`);
    check(await page.locator('#ops thead th', {hasText: 'speed-up'}).count() === 1, 'per-op speed-ups shown');
    const variantPoints = await page.evaluate(() => window.roofsimState.resultVar.ops.filter((o) => o.flops > 0).length);
    check(await page.locator('#chart svg .mark-symbol.role-mark path').count() === chart.points + variantPoints, 'base and variant drawn together');
    const opsFitVariant = await page.evaluate(() => { const t = document.getElementById('ops'); return [t.scrollWidth, t.parentElement.clientWidth]; });
    check(opsFitVariant[0] <= opsFitVariant[1], 'the op table with the variant\'s columns fits its panel', `${opsFitVariant[0]} px in ${opsFitVariant[1]}`);
    await page.screenshot({path: path.join(artifacts, '2-whatif.png'), fullPage: true});
    const sharedUrl = page.url();
    // Settings at their defaults (Llama-3-8B, prompt 512) are left out of the URL.
    check((sharedUrl.includes(`model=${MODEL}`) || !/model=/.test(sharedUrl)) && /batch=4/.test(sharedUrl) && /bw=2/.test(sharedUrl), 'the URL holds the settings', sharedUrl);

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
    await page.waitForSelector('#message.error', {timeout: 60000});
    const badModel = await page.textContent('#message');
    check(/config\.json/.test(badModel) && !/\/tmp\//.test(badModel), 'a broken config.json gets a message naming it', badModel);
    await page.setInputFiles('#hw-file', {name: 'chip.toml', mimeType: 'text/plain', buffer: Buffer.from('[hbm]\nbandwidth_gb_per_s = -5\n')});
    await page.waitForFunction(() => /chip\.toml/.test(document.getElementById('message').textContent), null, {timeout: 60000});
    check(true, 'a broken hardware TOML gets a message: ' + (await page.textContent('#message')).slice(0, 100));
    check(await page.locator('#chart svg').count() > 0, 'the chart is still there after bad uploads');
    await page.screenshot({path: path.join(artifacts, '3-bad-upload.png'), fullPage: true});

    // The hardware TOML edited in the page: twice the HBM bandwidth is analyzed at once; a bad
    // value gets the loader's message naming its key.
    await page.waitForFunction(() => document.getElementById('hw-toml').value.includes('bandwidth_gb_per_s = 3350'), null,
      {timeout: 60000});
    const bw0 = await page.evaluate(() => window.roofsimState.analysis.bandwidth);
    await page.click('#hw-edit summary');
    const toml = await page.inputValue('#hw-toml');
    await page.fill('#hw-toml', toml.replace('bandwidth_gb_per_s = 3350', 'bandwidth_gb_per_s = 6700'));
    await page.click('#hw-apply');
    await page.waitForFunction((b) => document.getElementById('hw').value.startsWith('upload:') && window.roofsimState.analysis &&
      window.roofsimState.analysis.bandwidth > 1.99 * b, bw0, {timeout: 60000});
    check(true, 'a hardware TOML edited in the page is used (HBM bandwidth doubled)');
    await page.fill('#hw-toml', toml.replace('bandwidth_gb_per_s = 3350', 'bandwidth_gb_per_s = -1'));
    await page.click('#hw-apply');
    await page.waitForFunction(() => /Edited hardware TOML/.test(document.getElementById('message').textContent), null, {timeout: 60000});
    const editMessage = await page.textContent('#message');
    check(/hbm\.bandwidth_gb_per_s/.test(editMessage), 'a bad value in the edited TOML names its key', editMessage.slice(0, 200));
    await page.screenshot({path: path.join(artifacts, '3b-edited-hardware.png'), fullPage: true});

    // Impossible settings: a message and a chart placeholder saying why, never a blank chart.
    await page.fill('#tp', '3');
    await page.waitForSelector('#chart .chart-empty', {timeout: 60000});
    const tpMessage = await page.textContent('#message');
    check(/tp|divide/i.test(tpMessage), 'tp 3 is refused with a message', tpMessage);
    await page.screenshot({path: path.join(artifacts, '4-impossible.png'), fullPage: true});
    await page.fill('#tp', '1');

    // A chip with near-memory units: their own roof is drawn and named in the legend.
    await page.selectOption('#hw', 'h100_pim');
    await page.waitForFunction(() => { const a = window.roofsimState.analysis; return a && a.hardware === 'h100_pim'; }, null, {timeout: 60000});
    await page.waitForFunction(() => /base near-memory roof/.test(document.querySelector('#chart svg')?.textContent || ''), null,
      {timeout: 60000}).catch(() => {});
    const nearRoof = await page.evaluate(() => ({roof: window.roofsimState.analysis.near_memory_roof,
      legend: /base near-memory roof/.test(document.querySelector('#chart svg')?.textContent || '')}));
    check(nearRoof.roof && nearRoof.roof.bandwidth > 1e13 && nearRoof.legend, 'a near-memory chip draws its own roof', JSON.stringify(nearRoof));
    await page.selectOption('#hw', 'h100_sxm5');
    await page.waitForFunction(() => { const a = window.roofsimState.analysis; return a && a.hardware === 'h100_sxm5'; }, null, {timeout: 60000});

    // A shipped Hugging Face config by its hub id, labelled with its size, analyzed at once.
    const hubLabel = await page.locator('#model option[value="deepseek-ai/DeepSeek-V3"]').textContent();
    check(/671B, 37\.\dB active/.test(hubLabel), 'hub ids are offered with their total and active parameters', hubLabel);
    await page.selectOption('#model', 'Qwen/Qwen3-8B');
    await page.waitForFunction(() => { const a = window.roofsimState.analysis; return a && /Qwen3-8B/i.test(a.model); }, null,
      {timeout: 60000});
    check(true, 'a hub id (Qwen/Qwen3-8B) is analyzed');

    // A good upload: a Hugging Face config.json of a small model.
    const cfg = {architectures: ['LlamaForCausalLM'], model_type: 'llama', hidden_size: 1024, intermediate_size: 2816,
      num_attention_heads: 16, num_key_value_heads: 4, num_hidden_layers: 8, vocab_size: 32000, max_position_embeddings: 4096};
    await page.setInputFiles('#model-file', {name: 'tiny.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(cfg))});
    await page.waitForFunction(() => document.getElementById('model').value.startsWith('upload:') && window.roofsimState.analysis &&
      window.roofsimState.analysis.ops.length > 0, null, {timeout: 60000});
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
    await b.waitForFunction(() => window.roofsimState.analysis && window.roofsimState.analysis.generate === 2000, null, {timeout: 60000})
      .catch(async (e) => { throw new Error(`${e.message}; page says: ${await b.textContent('#message')}; errors: ${pageErrors.join('; ')}`); });
    await b.click('#simulate');
    await b.waitForFunction(() => !document.getElementById('cancel').disabled, null, {timeout: 60000});
    await b.click('#cancel');
    await b.waitForFunction(() => document.getElementById('progress-text').textContent === 'cancelled', null, {timeout: 60000});
    check(true, 'a running simulation is cancelled');

    await collectiveChecks(browser, base, pageErrors);
    await serveChecks(browser, base, pageErrors);
    await newSettingChecks(browser, base, pageErrors);
    await swept;
    await sweepsChecks(browser, base, pageErrors);

    check(pageErrors.length === 0, 'no JavaScript errors', pageErrors.join('; '));
    await apiChecks(base);
  } finally {
    if (browser) await browser.close();
    fs.rmSync(sweepsDir, {recursive: true, force: true});
    server.kill('SIGTERM');
    await new Promise((r) => { if (server.exitCode !== null) r(); else { server.on('exit', r); setTimeout(r, 3000); } });
  }
}


async function download(page, id) {
  const [d] = await Promise.all([page.waitForEvent('download'), page.click(id)]);
  const file = path.join(artifacts, d.suggestedFilename());
  await d.saveAs(file);
  return fs.readFileSync(file);
}

// The collectives view: the numbers equal `roofsim collective --json`; the bytes sweep is drawn.
async function collectiveChecks(browser, base, pageErrors) {
  const cli = promisify(execFile)(roofsimBin, ['collective', '--topology', COLL.topology, '--op', COLL.op, '--bytes', String(COLL.bytes),
    '--json', '-'], {maxBuffer: 16 << 20}).then(({stdout}) => JSON.parse(stdout));
  const page = await browser.newPage({viewport: {width: 1400, height: 1000}});
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(base + '/?view=collective');
  await page.waitForSelector('body[data-views-ready="1"]', {timeout: 60000});
  check(await page.isVisible('#view-collective') && !(await page.isVisible('#view-inference')), 'collectives view: opened from the URL');
  await page.fill('#c-topology', COLL.topology);
  await page.selectOption('#c-op', COLL.op);
  await page.fill('#c-size', '64');
  await page.selectOption('#c-unit', 'MiB');
  await page.selectOption('#c-sweep-from', '10');
  await page.selectOption('#c-sweep-to', '20');
  await page.selectOption('#c-sweep-step', '3');
  await page.click('#c-simulate');
  await page.waitForFunction(() => window.roofsimViews.collective.result, null, {timeout: 60000});
  const c = await cli;
  const shown = {sim: await page.textContent('#c-sim'), bound: await page.textContent('#c-bound'), busbw: await page.textContent('#c-busbw'),
    algbw: await page.textContent('#c-algbw')};
  check(shown.sim === fmtTime(c.sim_time_s) && shown.bound === fmtTime(c.bound_time_s), 'collective: simulated time and bound equal roofsim collective --json',
    `${JSON.stringify(shown)} vs ${fmtTime(c.sim_time_s)}, ${fmtTime(c.bound_time_s)}`);
  check(shown.busbw === fmtBw(c.busbw) && shown.algbw === fmtBw(c.algbw), 'collective: algbw and busbw equal the CLI\'s', JSON.stringify(shown));
  const links = await page.locator('#c-links tbody tr').count();
  check(links === c.links.length && links > 0, 'collective: a row per link with its utilisation', `${links} vs ${c.links.length}`);
  const sweep = await page.evaluate(() => window.roofsimViews.collective.result.sweep.length);
  const points = await page.locator('#c-chart svg .mark-symbol.role-mark path').count();
  check(sweep === 5 && points === 2 * sweep, 'collective: the bytes sweep 1 KiB..1 MiB drawn, simulated beside the bound', `${sweep} sizes, ${points} points`);
  check(/view=collective/.test(page.url()) && /topology=switch%3A8/.test(page.url()) && /unit=MiB/.test(page.url()), 'collective: the URL holds the settings', page.url());
  await page.selectOption('#c-y', 'busbw');
  await page.waitForFunction(() => /bus bandwidth/.test(document.querySelector('#c-chart svg').textContent), null, {timeout: 60000});
  check(true, 'collective: the chart switches to bus bandwidth vs size');
  await page.screenshot({path: path.join(artifacts, '6-collective.png'), fullPage: true});
  const json = JSON.parse((await download(page, '#c-export-json')).toString());
  check(json.collective && json.collective.sim_time_s === c.sim_time_s && json.sweep.length === 5, 'collective: JSON export');
  const csv = (await download(page, '#c-export-csv')).toString();
  check(csv.startsWith('op,algorithm') && csv.trim().split('\n').length === 7, 'collective: CSV export (the point and the sweep)');
  check((await download(page, '#c-export-svg')).toString().includes('<svg'), 'collective: SVG export');
  // The shared URL restores the view and simulates again.
  const again = await browser.newPage();
  again.on('pageerror', (e) => pageErrors.push(e.message));
  await again.goto(page.url());
  await again.waitForFunction(() => window.roofsimViews && window.roofsimViews.collective.result, null, {timeout: 60000});
  check(await again.textContent('#c-sim') === shown.sim, 'collective: the shared URL restores the settings and the result');
  await again.close();
  // Impossible settings: a message.
  await page.fill('#c-topology', '3x');
  await page.click('#c-simulate');
  await page.waitForFunction(() => !document.getElementById('c-message').hidden, null, {timeout: 60000});
  const msg = await page.textContent('#c-message');
  check(/3x|topology/i.test(msg), 'collective: a bad topology shows a message', msg);
  await page.fill('#c-topology', COLL.topology);
  await page.fill('#c-size', '-2');
  await page.click('#c-simulate');
  await page.waitForFunction(() => /bytes per chip/.test(document.getElementById('c-message').textContent), null, {timeout: 60000});
  check(true, 'collective: negative bytes show a message');
  await page.close();
}

// The serving view: TTFT p50 equals `roofsim serve --json`; the time series and distributions are drawn.
async function serveChecks(browser, base, pageErrors) {
  const cli = promisify(execFile)(roofsimBin, ['serve', '--concurrency', String(SERVE.concurrency), '--requests', String(SERVE.requests),
    '--prompt', String(SERVE.prompt), '--output', String(SERVE.output), '--json', '-'], {maxBuffer: 64 << 20}).then(({stdout}) => JSON.parse(stdout));
  const page = await browser.newPage({viewport: {width: 1400, height: 1100}});
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(base + '/');
  await page.waitForSelector('body[data-views-ready="1"]', {timeout: 60000});
  await page.click('#tabs .tab[data-view="serve"]');
  check(/view=serve/.test(page.url()), 'serving view: the tab switches the view and the URL');
  await page.selectOption('#s-arrivals', 'concurrency');
  for (const [k, v] of [['load', SERVE.concurrency], ['requests', SERVE.requests], ['prompt', SERVE.prompt], ['output', SERVE.output]]) {
    await page.fill('#s-' + k, String(v));
  }
  await page.click('#s-simulate');
  await page.waitForFunction(() => window.roofsimViews.serve.result, null, {timeout: 60000});
  const r = await cli;
  const p50 = await page.textContent('#s-latency tr[data-metric="ttft_s"] td[data-k="p50"]');
  check(p50 === fmtTime(r.summary.ttft_s.p50), 'serve: TTFT p50 equals roofsim serve --json', `${p50} vs ${fmtTime(r.summary.ttft_s.p50)}`);
  const tpot = await page.textContent('#s-latency tr[data-metric="tpot_s"] td[data-k="p90"]');
  check(tpot === fmtTime(r.summary.tpot_s.p90), 'serve: TPOT p90 equals the CLI\'s', `${tpot} vs ${fmtTime(r.summary.tpot_s.p90)}`);
  const summary = await page.textContent('#s-summary');
  check(/ridge/.test(summary) && /tok\/s/.test(summary), 'serve: throughput and the decode intensity beside the ridge shown', summary.slice(0, 200));
  const marks = await page.evaluate(() => ({lines: document.querySelectorAll('#s-chart svg .mark-line').length,
    bars: document.querySelectorAll('#s-chart svg .mark-rect path').length}));
  check(marks.lines >= 3 && marks.bars > 0, 'serve: batch / queue / KV blocks over time and the TTFT/TPOT histograms drawn', JSON.stringify(marks));
  await page.screenshot({path: path.join(artifacts, '7-serve.png'), fullPage: true});
  const csv = (await download(page, '#s-export-csv')).toString();
  const nreq = await page.evaluate(() => window.roofsimViews.serve.result.requests.length);
  check(csv.startsWith('id,arrival_s') && csv.trim().split('\n').length === nreq + 1 && nreq >= SERVE.requests, 'serve: CSV export, a row per request');
  check((await download(page, '#s-export-png')).subarray(1, 4).toString() === 'PNG', 'serve: PNG export');
  // Pipeline stages from the form: the same numbers as `roofsim serve --pp 2`.
  const cliPp = promisify(execFile)(roofsimBin, ['serve', '--concurrency', String(SERVE.concurrency), '--requests', String(SERVE.requests),
    '--prompt', String(SERVE.prompt), '--output', String(SERVE.output), '--pp', '2', '--json', '-'], {maxBuffer: 64 << 20})
    .then(({stdout}) => JSON.parse(stdout));
  await page.fill('#s-pp', '2');
  await page.click('#s-simulate');
  await page.waitForFunction(() => window.roofsimViews.serve.result && window.roofsimViews.serve.result.pp === 2, null, {timeout: 60000});
  const rPp = await cliPp;
  const p50Pp = await page.textContent('#s-latency tr[data-metric="ttft_s"] td[data-k="p50"]');
  check(p50Pp === fmtTime(rPp.summary.ttft_s.p50), 'serve: pipeline stages from the form, TTFT p50 equals roofsim serve --pp 2',
    `${p50Pp} vs ${fmtTime(rPp.summary.ttft_s.p50)}`);
  await page.fill('#s-pp', '1');
  // "More settings": every other declared setting of serve is a field, sent when set.
  await page.click('#s-more summary');
  await page.selectOption('#s-x-kv_admission', 'on_demand');
  await page.fill('#s-x-block_tokens', '16');
  const more = await page.evaluate(() => ({sent: serveSettings(), fields: document.querySelectorAll('#s-more-fields .field').length}));
  await page.screenshot({path: path.join(artifacts, '7b-serve-more-settings.png'), fullPage: true});
  check(more.sent.kv_admission === 'on_demand' && more.sent.block_tokens === 16 && more.fields > 30,
    'serve: "More settings" has a field per other declared setting and sends what is set', `${more.fields} fields, ${JSON.stringify(more.sent)}`);
  await page.selectOption('#s-x-kv_admission', '');
  await page.fill('#s-x-block_tokens', '');
  // Impossible settings: a message.
  await page.fill('#s-prompt', 'normal:abc');
  await page.click('#s-simulate');
  await page.waitForFunction(() => !document.getElementById('s-message').hidden, null, {timeout: 60000});
  const msg = await page.textContent('#s-message');
  check(/prompt|normal/.test(msg), 'serve: a bad length distribution shows a message', msg);
  // Cancel a long serve.
  await page.fill('#s-prompt', 'normal:2000:500');
  await page.fill('#s-requests', '5000');
  await page.fill('#s-load', '64');
  await page.click('#s-simulate');
  await page.waitForFunction(() => !document.getElementById('s-cancel').disabled, null, {timeout: 60000});
  await page.click('#s-cancel');
  await page.waitForFunction(() => document.getElementById('s-progress-text').textContent === 'cancelled', null, {timeout: 60000});
  check(true, 'serve: a running serve is cancelled');
  await page.close();
}

// A setting added to a table appears in the serve form with no page code: the page is served a
// settings table with one more setting, and builds a field for it.
async function newSettingChecks(browser, base, pageErrors) {
  const page = await browser.newPage({viewport: {width: 1400, height: 1000}});
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.route('**/api/presets', async (route) => {
    const response = await route.fetch();
    const presets = await response.json();
    presets.settings.serving.settings.push({name: 'zz_added_setting', flag: '--zz-added-setting', kind: 'whole', unit: 'tokens',
      default: '7', help: 'a setting the page has no code for', aliases: [], group: 'scheduler', commands: 'serve'});
    await route.fulfill({response, json: presets});
  });
  await page.goto(base + '/?view=serve');
  await page.waitForSelector('body[data-views-ready="1"]', {timeout: 60000});
  const added = await page.evaluate(() => {
    const el = document.getElementById('s-x-zz_added_setting');
    if (!el) return null;
    el.value = '9';
    return {placeholder: el.placeholder, title: el.title, sent: serveSettings().zz_added_setting};
  });
  check(added && added.placeholder === '7' && added.sent === 9 && /no code/.test(added.title),
    'a setting added to a settings table appears in the serve form, with its default and help, and is sent', JSON.stringify(added));
  await page.close();
}

// The sweeps view: lists the folder's sweep files and draws the store's points.
async function sweepsChecks(browser, base, pageErrors) {
  const page = await browser.newPage({viewport: {width: 1400, height: 1000}});
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(base + '/?view=sweeps&file=bandwidth-vs-batch.toml');
  await page.waitForSelector('body[data-views-ready="1"]', {timeout: 60000});
  const files = await page.$$eval('#w-file option', (o) => o.map((x) => x.value));
  check(files.includes('bandwidth-vs-batch.toml') && files.includes('not-run-yet.toml'), 'sweeps: the folder\'s sweep files listed', files.join(', '));
  await page.waitForFunction(() => document.querySelectorAll('#w-table tbody tr').length > 0, null, {timeout: 60000})
    .catch(async () => { throw new Error('sweeps: no points shown; the page says: ' + await page.textContent('#w-message')); });
  const rows = await page.locator('#w-table tbody tr').count();
  check(rows === 8, 'sweeps: the store\'s 8 points in the table', String(rows));
  await page.selectOption('#w-x', 'batch');
  await page.selectOption('#w-y', 'decode_tok_s');
  await page.selectOption('#w-color', 'hbm.bandwidth_gb_per_s');
  const pts = await page.locator('#w-chart svg .mark-symbol.role-mark path').count();
  check(pts === 8, 'sweeps: decode_tok_s vs batch drawn, a point each', String(pts));
  const legend = await page.textContent('#w-chart svg');
  check(/6700/.test(legend) && /3350/.test(legend), 'sweeps: coloured by hbm.bandwidth_gb_per_s');
  check(/x=batch/.test(page.url()) && /color=hbm.bandwidth_gb_per_s/.test(page.url()), 'sweeps: the URL holds the file and axes', page.url());
  await page.screenshot({path: path.join(artifacts, '8-sweeps.png'), fullPage: true});
  const csv = (await download(page, '#w-export-csv')).toString();
  check(csv.trim().split('\n').length === 9 && /decode_tok_s/.test(csv.split('\n')[0]), 'sweeps: CSV export');
  await page.selectOption('#w-file', 'not-run-yet.toml');
  await page.waitForFunction(() => /no store yet/.test(document.getElementById('w-message').textContent), null, {timeout: 60000});
  // The command it suggests names the file where a shell in the server's folder finds it (not its bare name).
  const suggested = await page.textContent('#w-message');
  check(/roofsim sweep \S*\/not-run-yet\.toml/.test(suggested), 'sweeps: the suggested command names the file\'s path', suggested);
  check(await page.locator('#w-chart .chart-empty').count() === 1, 'sweeps: a file without a store says so');
  await page.close();
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
    ['unknown job kind', () => post('/api/jobs', '{"kind": "nope", "settings": {}}'), 400],
    ['collective: unknown key', () => post('/api/jobs', '{"kind": "collective", "settings": {"bites": 4}}'), 400],
    ['collective: bytes as text', () => post('/api/jobs', '{"kind": "collective", "settings": {"bytes": "1GiB"}}'), 400],
    ['collective: huge bytes', () => post('/api/jobs', '{"kind": "collective", "settings": {"bytes": 1e300}}'), 400],
    ['collective: bad op', () => post('/api/jobs', '{"kind": "collective", "settings": {"op": "allsum"}}'), 400],
    ['collective: bad sweep', () => post('/api/jobs', '{"kind": "collective", "settings": {}, "sweep": [0, "x"]}'), 400],
    ['collective: a path as hw', () => post('/api/jobs', '{"kind": "collective", "settings": {"hw": "../configs/x.toml"}}'), 400],
    ['serve: a requests file', () => post('/api/jobs', '{"kind": "serve", "settings": {"requests_from": "/etc/passwd"}}'), 400],
    ['serve: a requests file by its old name', () => post('/api/jobs', '{"kind": "serve", "settings": {"trace_file": "/etc/passwd"}}'), 400],
    ['serve: a path as draft', () => post('/api/jobs', '{"kind": "serve", "settings": {"draft": "/etc/passwd"}}'), 400],
    ['serve: settings not an object', () => post('/api/jobs', '{"kind": "serve", "settings": [1]}'), 400],
    ['serve: bad value', () => post('/api/jobs', '{"kind": "serve", "settings": {"scheduler": "fifo"}}'), 202],
    ['sweep outside the folder', () => fetch(base + '/api/sweep?name=../../CMakeLists.txt'), 404],
    ['sweep with no name', () => fetch(base + '/api/sweep'), 404],
  ];
  // Another site's name as Host (DNS rebinding) is refused; this server's own names are answered.
  const withHost = (host) => new Promise((resolve, reject) => {
    const u = new URL(base);
    const req = http.request({host: '127.0.0.1', port: u.port, path: '/api/presets', headers: {Host: host}}, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({status: res.statusCode, json: async () => JSON.parse(text)}));
    });
    req.on('error', reject);
    req.end();
  });
  // A body shorter than its Content-Length: the server answers when the client stops, not never.
  const shortBody = () => new Promise((resolve, reject) => {
    const u = new URL(base);
    const req = http.request({host: '127.0.0.1', port: u.port, path: '/api/analyze', method: 'POST',
      headers: {'Content-Type': 'application/json', 'Content-Length': 100}}, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({status: res.statusCode, json: async () => JSON.parse(text)}));
    });
    req.on('error', reject);
    req.write('{"settings"');
    req.socket ? req.socket.end() : req.on('socket', (s) => s.on('connect', () => s.end()));
  });
  cases.push(['a body that ends early', shortBody, 400]);
  cases.push(['the work guard lifted', () => post('/api/jobs', '{"settings": {"max_events": 0}}'), 400]);
  cases.push(['another site as Host', () => withHost('rebind.attacker.example'), 403]);
  cases.push(['another port as Host', () => withHost('127.0.0.1:1'), 403]);
  cases.push(['localhost as Host', () => withHost(`localhost:${new URL(base).port}`), 200]);
  // A POST from another site's page (its Origin) is refused; from this server's own page it runs.
  const withOrigin = (origin) => new Promise((resolve, reject) => {
    const u = new URL(base);
    const body = '{"settings": {}}';
    const req = http.request({host: '127.0.0.1', port: u.port, path: '/api/analyze', method: 'POST',
      headers: {'Content-Type': 'application/json', 'Content-Length': body.length, Origin: origin}}, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({status: res.statusCode, json: async () => JSON.parse(text)}));
    });
    req.on('error', reject);
    req.end(body);
  });
  cases.push(['a POST from another site', () => withOrigin('http://attacker.example'), 403]);
  cases.push(['a POST from a local file page', () => withOrigin('null'), 403]);
  cases.push(['a POST from this server\'s page', () => withOrigin(new URL(base).origin), 200]);
  for (const [what, req, status] of cases) {
    const r = await req();
    const body = await r.json().catch(() => ({}));
    check(r.status === status && (status < 400 || (typeof body.error === 'string' && body.error.length > 0)),
      `API ${what}: ${r.status}`, `expected ${status}: ${JSON.stringify(body).slice(0, 200)}`);
    if (what === 'serve: bad value') {
      let v;
      for (let i = 0; i < 100; i++) {
        v = await (await fetch(`${base}/api/jobs/${body.id}`)).json();
        if (v.state !== 'running') break;
        await new Promise((res) => setTimeout(res, 100));
      }
      check(v.state === 'error' && v.kind === 'input' && /scheduler/.test(v.error), 'a serve with a bad setting ends with its message', v.error);
    }
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
