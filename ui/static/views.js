// roofsim ui: the collectives, serving and sweeps views (the inference view is app.js, whose
// helpers these use: $, api, addOption, escapeHtml, download, fmtTime, fmtSi, fmtPct, fmtBytes).
// Each view keeps its own settings in the address bar (?view=collective&...) while it shows.
'use strict';

const VIEWS = ['inference', 'collective', 'serve', 'sweeps'];
const views = {collective: {}, serve: {}, sweeps: {}};  // per view: result, chart view, jobs, ...
window.roofsimViews = views;  // for the browser test

// --- shared ----------------------------------------------------------------------------------
function vMessage(p, text, kind) {
  const m = $(p + '-message');
  m.textContent = text || '';
  m.className = 'message ' + (kind || 'error');
  m.hidden = !text;
}

function setViewUrl(view, params) {
  const q = new URLSearchParams();
  q.set('view', view);
  for (const [k, v] of Object.entries(params)) if (v !== '' && v != null && v !== false) q.set(k, v === true ? '1' : v);
  history.replaceState(null, '', '?' + q.toString());
}

function showView(name, fromUrl) {
  if (!VIEWS.includes(name)) name = 'inference';
  activeView = name;
  for (const v of VIEWS) $('view-' + v).hidden = v !== name;
  for (const b of document.querySelectorAll('#tabs .tab')) b.classList.toggle('active', b.dataset.view === name);
  if (fromUrl) return;
  if (name === 'inference') writeUrl();
  else if (name === 'collective') collectiveUrl();
  else if (name === 'serve') serveUrl();
  else {
    sweepsUrl();
    if (!views.sweeps.data && !views.sweeps.loading) {
      views.sweeps.loading = (views.sweeps.listed || loadSweepList(null)).then(() => loadSweep(null)).finally(() => { views.sweeps.loading = null; });
    }
  }
}

// A chart's width: its panel's, less room for the axis titles and the legend.
function chartWidth(el, less) { return Math.max(360, (el.closest('.panel') || el).clientWidth - less); }

function emptyChart(el, text) {
  el.innerHTML = `<div class="chart-empty">No chart: ${escapeHtml(text)}</div>`;
}

async function embed(el, spec, holder) {
  if (holder.view) { holder.view.finalize(); holder.view = null; }
  const tip = document.getElementById('vg-tooltip-element');
  if (tip) tip.classList.remove('visible');
  if (typeof vegaEmbed === 'undefined') {
    emptyChart(el, 'the chart libraries did not load (run scripts/install-deps.sh, which runs npm ci --prefix ui)');
    return;
  }
  try {
    holder.view = (await vegaEmbed(el, spec, {actions: false, renderer: 'svg'})).view;
  } catch (err) {
    holder.view = null;
    emptyChart(el, err.message);
  }
}

// A job of the server's (kind run, collective or serve): started, polled, cancellable.
async function runViewJob(p, holder, body) {
  const setRunningV = (on) => {
    holder.running = on;
    $(p + '-simulate').disabled = on;
    $(p + '-cancel').disabled = !on;
    $(p + '-progress').hidden = !on;
  };
  holder.cancelRequested = false;
  setRunningV(true);
  $(p + '-progress-text').textContent = 'starting';
  try {
    const j = await api('POST', '/api/jobs', body);
    holder.job = j.id;
    if (holder.cancelRequested) throw new Error('cancelled');
    for (;;) {
      await new Promise((r) => setTimeout(r, 200));
      const v = await api('GET', '/api/jobs/' + j.id);
      const pr = v.progress || {};
      const bar = $(p + '-progress');
      if (pr.total) { bar.max = pr.total; bar.value = pr.done; } else bar.removeAttribute('value');
      $(p + '-progress-text').textContent = pr.total ? `${pr.what} (${pr.done}/${pr.total}), ${v.elapsed_s.toFixed(1)} s`
        : `simulating, ${v.elapsed_s.toFixed(1)} s`;
      if (v.state === 'done') { $(p + '-progress-text').textContent = `done in ${v.elapsed_s.toFixed(1)} s`; return v.result; }
      if (v.state === 'cancelled') throw new Error('cancelled');
      if (v.state === 'error') throw new Error(v.error);
    }
  } finally {
    holder.job = null;
    setRunningV(false);
  }
}

async function cancelViewJob(holder) {
  holder.cancelRequested = true;
  if (holder.job) await api('POST', `/api/jobs/${holder.job}/cancel`).catch(() => {});
}

function csvText(rows, cols) {
  const cell = (v) => (v == null ? '' : /[",\n]/.test(String(v)) ? '"' + String(v).replace(/"/g, '""') + '"' : String(v));
  return [cols.map(cell).join(',')].concat(rows.map((r) => cols.map((c) => cell(r[c])).join(','))).join('\n') + '\n';
}

function exportButtons(p, holder, name, json, csv) {
  const nm = () => name().replace(/[^A-Za-z0-9_.-]/g, '_');
  $(p + '-export-json').addEventListener('click', () => {
    const j = json();
    if (!j) { vMessage(p, 'Nothing to export yet: simulate first.'); return; }
    download(nm() + '.json', new Blob([JSON.stringify(j, null, 1)], {type: 'application/json'}));
  });
  $(p + '-export-csv').addEventListener('click', () => {
    const c = csv();
    if (!c) { vMessage(p, 'Nothing to export yet: simulate first.'); return; }
    download(nm() + '.csv', new Blob([c], {type: 'text/csv'}));
  });
  $(p + '-export-svg').addEventListener('click', async () => {
    if (!holder.view) { vMessage(p, 'No chart to export yet.'); return; }
    download(nm() + '.svg', new Blob([await holder.view.toSVG()], {type: 'image/svg+xml'}));
  });
  $(p + '-export-png').addEventListener('click', async () => {
    if (!holder.view) { vMessage(p, 'No chart to export yet.'); return; }
    download(nm() + '.png', await holder.view.toImageURL('png', 2));
  });
}

function decades(lo, hi) {
  const out = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) if (10 ** e >= lo && 10 ** e <= hi) out.push(10 ** e);
  return out;
}

// Numbers from text fields: '' is left out, anything else goes as typed (the server names what is wrong).
function numberOrText(text) {
  const t = String(text).trim();
  if (t === '') return undefined;
  const v = Number(t);
  return Number.isFinite(v) ? v : t;
}

// --- collectives -----------------------------------------------------------------------------
const UNITS = {B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3, KB: 1e3, MB: 1e6, GB: 1e9};
const C_FIELDS = ['hw', 'topology', 'op', 'algo', 'size', 'unit', 'group', 'to', 'concurrent', 'dtype', 'ideal', 'sweep-from', 'sweep-to', 'sweep-step', 'y'];
// The form's defaults: the collective settings' own (hw, op, bytes, dtype, concurrent: filled from
// `roofsim settings --json` by initCollective); '' or the sentinels below leave a setting to its
// default in words (the topology's algorithm, all chips, chip 1). The sweep and chart fields are
// the page's own.
const C_DEFAULTS = {hw: '', topology: '', op: '', algo: '', size: '', unit: '', group: '0', to: '-1',
  concurrent: '', dtype: '', ideal: false, 'sweep-from': '10', 'sweep-to': '30', 'sweep-step': '3', y: 'time'};

function fmtBw(x) { return x == null || !isFinite(x) ? '–' : (x / 1e9).toPrecision(4) + ' GB/s'; }

function collectiveSettings() {
  const size = Number($('c-size').value), unit = UNITS[$('c-unit').value];
  if (!(size > 0) || !Number.isFinite(size)) throw new Error(`bytes per chip: '${$('c-size').value}' is not a positive number`);
  const bytes = Math.round(size * unit);
  if (bytes < 1) throw new Error('bytes per chip: less than one byte');
  const s = {hw: $('c-hw').value, op: $('c-op').value, bytes, dtype: $('c-dtype').value};
  if ($('c-topology').value.trim()) s.topology = $('c-topology').value.trim();
  if ($('c-algo').value) s.algo = $('c-algo').value;
  for (const k of ['group', 'to', 'concurrent']) {
    const v = numberOrText($('c-' + k).value);
    if (v !== undefined && String(v) !== C_DEFAULTS[k]) s[k] = v;
  }
  if ($('c-ideal').checked) s.ideal = true;
  return s;
}

function collectiveSizes() {
  const from = Number($('c-sweep-from').value), to = Number($('c-sweep-to').value), step = Number($('c-sweep-step').value);
  if (!step) return [];
  if (from > to) throw new Error('bytes sweep: "from" is larger than "to"');
  const out = [];
  for (let e = from; e <= to; e += step) out.push(2 ** e);
  if (out[out.length - 1] !== 2 ** to) out.push(2 ** to);
  return out;
}

function collectiveUrl() {
  if (activeView !== 'collective') return;
  const q = {};
  for (const f of C_FIELDS) {
    const el = $('c-' + f);
    const v = el.type === 'checkbox' ? el.checked : el.value;
    if (String(v) !== String(C_DEFAULTS[f])) q[f] = v;
  }
  if (views.collective.result) q.run = '1';
  setViewUrl('collective', q);
}

function collectiveChanged() {
  views.collective.result = null;
  collectiveUrl();
}

async function collectiveSimulate() {
  const h = views.collective;
  if (h.running) return;
  vMessage('c', '');
  let body;
  try {
    body = {kind: 'collective', settings: collectiveSettings(), sweep: collectiveSizes()};
  } catch (err) {
    vMessage('c', err.message);
    return;
  }
  try {
    h.result = await runViewJob('c', h, body);
    h.settings = body.settings;
    collectiveUrl();
    renderCollective();
  } catch (err) {
    if (err.message === 'cancelled') $('c-progress-text').textContent = 'cancelled';
    else { vMessage('c', 'Collective: ' + err.message); $('c-progress-text').textContent = ''; }
  }
}

function renderCollective() {
  const r = views.collective.result;
  if (!r) return;
  const c = r.collective;
  $('c-what').textContent = `${c.op} (${c.algorithm}) of ${fmtBytes(c.bytes)} per chip, group ${c.group} of ${c.chips} chips, ${c.topology}` +
    (c.concurrent > 1 ? `, ${c.concurrent} at once` : '');
  $('c-sim').textContent = fmtTime(c.sim_time_s);
  $('c-bound').textContent = fmtTime(c.bound_time_s);
  $('c-pct').textContent = fmtPct(c.bound_time_s / c.sim_time_s);
  $('c-algbw').textContent = fmtBw(c.algbw);
  $('c-busbw').textContent = fmtBw(c.busbw);
  const body = $('c-links').tBodies[0];
  body.innerHTML = '';
  const links = (c.links || []).slice().sort((a, b) => b.utilisation - a.utilisation);
  for (const l of links) {
    const tr = document.createElement('tr');
    for (const t of [l.link, fmtBytes(l.bytes), fmtPct(l.utilisation)]) {
      const td = document.createElement('td');
      td.textContent = t;
      tr.appendChild(td);
    }
    body.appendChild(tr);
  }
  renderCollectiveChart();
}

function renderCollectiveChart() {
  const r = views.collective.result, el = $('c-chart');
  if (!r) return;
  const ok = (r.sweep || []).filter((p) => !p.error && p.sim_time_s > 0);
  const bad = (r.sweep || []).filter((p) => p.error);
  if (bad.length) vMessage('c', bad.map((p) => `${fmtBytes(p.bytes)}: ${p.error}`).join('\n'), 'info');
  if (!ok.length) { emptyChart(el, (r.sweep || []).length ? 'no size of the sweep could run' : 'the bytes sweep is off'); return; }
  const busbw = $('c-y').value === 'busbw';
  const data = [];
  for (const p of ok) {
    const bw = (t) => p.busbw * p.sim_time_s / t;  // bus bandwidth at time t (bytes fixed)
    const common = {bytes: p.bytes, size: fmtBytes(p.bytes), sim: fmtTime(p.sim_time_s), bound: fmtTime(p.bound_time_s),
      'bus bw': fmtBw(p.busbw), 'of bound': fmtPct(p.bound_time_s / p.sim_time_s)};
    data.push({...common, series: 'closed-form bound', y: busbw ? bw(p.bound_time_s) : p.bound_time_s});
    data.push({...common, series: 'simulated', y: busbw ? p.busbw : p.sim_time_s});
  }
  const ys = data.map((d) => d.y), xs = data.map((d) => d.bytes);
  const c = r.collective;
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    width: chartWidth(el, 230), height: 340, data: {values: data},
    title: `${c.op} (${c.algorithm}) on ${c.topology}, ${c.hardware}: ${busbw ? 'bus bandwidth' : 'time'} vs bytes per chip`,
    mark: {type: 'line', point: {filled: true, size: 60}},
    encoding: {
      x: {field: 'bytes', type: 'quantitative', title: 'bytes per chip', scale: {type: 'log', base: 2, domain: [Math.min(...xs), Math.max(...xs)]},
        axis: {values: xs, labelExpr: 'datum.value >= 1073741824 ? datum.value / 1073741824 + " GiB" : datum.value >= 1048576 ? datum.value / 1048576 + " MiB" : datum.value >= 1024 ? datum.value / 1024 + " KiB" : datum.value + " B"'}},
      y: {field: 'y', type: 'quantitative', title: busbw ? 'bus bandwidth (B/s)' : 'time (s)',
        scale: {type: 'log', domain: [Math.min(...ys) / 1.5, Math.max(...ys) * 1.5], nice: false}, axis: {format: '~s'}},
      color: {field: 'series', type: 'nominal', title: null, scale: {domain: ['closed-form bound', 'simulated'], range: ['#999', '#2b6cb0']}},
      strokeDash: {field: 'series', type: 'nominal', scale: {domain: ['closed-form bound', 'simulated'], range: [[5, 4], [1, 0]]}},
      tooltip: ['series', 'size', 'sim', 'bound', 'of bound', 'bus bw'].map((f) => ({field: f, type: 'nominal'})),
    },
  };
  return embed(el, spec, views.collective);
}

function initCollective(presets) {
  const declared = Object.fromEntries(presets.settings.collective.settings.map((c) => [c.name, c.default]));
  // "1.0 GiB": the number and the unit of the size field
  const [, size, unit] = /^([0-9.]+) (\w+)$/.exec(declared.bytes) || [null, '1', 'GiB'];
  Object.assign(C_DEFAULTS, {hw: declared.hw, op: declared.op, size: String(Number(size)), unit, concurrent: declared.concurrent,
    dtype: declared.dtype});
  for (const h of presets.hardware) addOption($('c-hw'), h, h);
  for (const o of presets.collective.ops) addOption($('c-op'), o, o);
  for (const a of presets.collective.algorithms) addOption($('c-algo'), a, a);
  for (let e = 0; e <= 34; e++) {
    const label = fmtBytes(2 ** e).replace(/\.0+ /, ' ').replace(/(\.\d*?)0+ /, '$1 ');
    addOption($('c-sweep-from'), String(e), label);
    addOption($('c-sweep-to'), String(e), label);
  }
  for (const [k, v] of Object.entries(C_DEFAULTS)) {
    const el = $('c-' + k);
    if (el.type === 'checkbox') el.checked = v; else el.value = v;
  }
  for (const f of C_FIELDS) {
    const el = $('c-' + f);
    el.addEventListener(el.tagName === 'INPUT' && el.type !== 'checkbox' ? 'input' : 'change', f === 'y' ? () => { collectiveUrl(); renderCollectiveChart(); } : collectiveChanged);
  }
  $('c-simulate').addEventListener('click', collectiveSimulate);
  $('c-cancel').addEventListener('click', () => cancelViewJob(views.collective));
  exportButtons('c', views.collective, () => `roofsim-collective-${$('c-op').value}-${$('c-hw').value}`,
    () => views.collective.result && {settings: views.collective.settings, url: location.href, ...views.collective.result},
    () => {
      const r = views.collective.result;
      if (!r) return null;
      return csvText([r.collective].concat(r.sweep || []), ['op', 'algorithm', 'topology', 'chips', 'group', 'bytes', 'sim_time_s', 'bound_time_s', 'algbw', 'busbw', 'error']);
    });
}

function readCollectiveUrl(q) {
  for (const f of C_FIELDS) {
    if (!q.has(f)) continue;
    const el = $('c-' + f);
    if (el.type === 'checkbox') el.checked = q.get(f) === '1' || q.get(f) === 'true';
    else {
      if (el.tagName === 'SELECT' && ![...el.options].some((o) => o.value === q.get(f))) addOption(el, q.get(f), q.get(f));
      el.value = q.get(f);
    }
  }
  return q.get('run') === '1';
}

// --- serving ---------------------------------------------------------------------------------
const S_FIELDS = ['hw', 'model', 'arrivals', 'load', 'requests', 'seed', 'prompt', 'output', 'scheduler', 'priority', 'max_batch',
  'max_tokens', 'chunked_prefill', 'speculative_tokens', 'acceptance', 'tp', 'pp', 'ep', 'micro_batches', 'disaggregate',
  'prefill_instances', 'decode_instances', 'slo_ttft_ms', 'slo_tpot_ms'];
// The form's defaults: '' leaves a setting to roofsim serve's own default; the workload's
// (arrivals, lengths, requests) are filled from the declared serving settings by initServe.
// (arrivals: Poisson, serve's default kind; its rate is the declared default of `rate`.)
const S_DEFAULTS = {hw: '', model: '', arrivals: 'rate', load: '', requests: '', seed: '',
  prompt: '', output: '', scheduler: '', priority: '', max_batch: '', max_tokens: '', chunked_prefill: false, speculative_tokens: '',
  acceptance: '', tp: '', pp: '', ep: '', micro_batches: '', disaggregate: false, prefill_instances: '', decode_instances: '', slo_ttft_ms: '', slo_tpot_ms: ''};

// "More settings": a field for every declared setting of a serving run that the form above does
// not have (the machine's that serve takes, and the serving settings), made from `roofsim settings
// --json` as the page loads, so a setting added to a table appears here with no page code.
// Files on the server (a trace) are not the page's to name.
const S_GENERATED = [];
const S_NOT_GENERATED = new Set(['hw', 'model', 'concurrency', 'rate', 'burst', 'requests_from']);

function buildMoreSettings(presets) {
  const shown = new Set(S_FIELDS.concat([...S_NOT_GENERATED]));
  const machine = presets.settings.run.settings.filter((s) => s.commands.includes('serve'));
  const all = machine.map((s) => ({...s, group: 'machine'})).concat(presets.settings.serving.settings);
  S_GENERATED.push(...buildSettingFields($('s-more-fields'), 's-x-', all.filter((s) => !shown.has(s.name))));
}

function serveSettings() {
  const s = {hw: $('s-hw').value, model: $('s-model').value};
  s[$('s-arrivals').value] = numberOrText($('s-load').value);
  if (s[$('s-arrivals').value] === undefined) throw new Error(`${$('s-arrivals').value}: give a number`);
  for (const k of ['requests', 'seed', 'prompt', 'output', 'max_batch', 'max_tokens', 'speculative_tokens', 'tp', 'pp', 'ep',
    'micro_batches', 'prefill_instances', 'decode_instances', 'slo_ttft_ms', 'slo_tpot_ms']) {
    const v = numberOrText($('s-' + k).value);
    if (v !== undefined && String(v) !== String(S_DEFAULTS[k])) s[k] = v;  // a default is left to serve
  }
  for (const k of ['scheduler', 'priority']) if ($('s-' + k).value) s[k] = $('s-' + k).value;
  if (s.scheduler === S_DEFAULTS.scheduler) delete s.scheduler;
  for (const k of ['chunked_prefill', 'disaggregate']) if ($('s-' + k).checked) s[k] = true;
  const acc = $('s-acceptance').value.trim();
  if (acc) s.acceptance = acc.includes(',') ? acc.split(',').map(numberOrText) : numberOrText(acc);
  return Object.assign(s, generatedValues(S_GENERATED, 's-x-'));
}

function serveUrl() {
  if (activeView !== 'serve') return;
  const q = {};
  for (const f of S_FIELDS) {
    const el = $('s-' + f);
    const v = el.type === 'checkbox' ? el.checked : el.value;
    if (String(v) !== String(S_DEFAULTS[f])) q[f] = v;
  }
  if (views.serve.result) q.run = '1';
  setViewUrl('serve', q);
}

async function serveSimulate() {
  const h = views.serve;
  if (h.running) return;
  vMessage('s', '');
  let settings;
  try {
    settings = serveSettings();
  } catch (err) {
    vMessage('s', err.message);
    return;
  }
  try {
    h.result = await runViewJob('s', h, {kind: 'serve', settings});
    h.settings = settings;
    serveUrl();
    renderServe();
  } catch (err) {
    if (err.message === 'cancelled') $('s-progress-text').textContent = 'cancelled';
    else { vMessage('s', 'Serving: ' + err.message); $('s-progress-text').textContent = ''; }
  }
}

function renderServe() {
  const r = views.serve.result;
  if (!r) return;
  const sm = r.summary;
  const body = $('s-latency').tBodies[0];
  body.innerHTML = '';
  for (const [key, label] of [['ttft_s', 'time to first token'], ['tpot_s', 'time per output token'], ['e2e_s', 'end to end']]) {
    const tr = document.createElement('tr');
    tr.dataset.metric = key;
    const d = sm[key] || {};
    tr.innerHTML = `<td>${label}</td>` + ['mean', 'p50', 'p90', 'p99', 'max'].map((k) => `<td data-k="${k}">${fmtTime(d[k])}</td>`).join('');
    body.appendChild(tr);
  }
  const rate = (x, u) => (x == null ? '–' : (Math.abs(x) >= 1e4 ? Math.round(x).toLocaleString('en-US') : x.toPrecision(4)) + ' ' + u);
  const ridge = r.ridge;
  const di = sm.decode_intensity;
  const items = [
    ['requests', `${sm.requests} in ${fmtTime(sm.duration_s)} simulated (${r.iterations} iterations, ${r.shapes_simulated} shapes simulated, ${fmtTime(r.wall_s)} wall)`],
    ['output tokens/s', rate(sm.output_tok_s, 'tok/s')],
    ['per chip', `${rate(sm.output_tok_s_per_chip, 'tok/s')} (${r.chips} chip${r.chips > 1 ? 's' : ''})`],
    ['per user', rate(sm.tok_s_per_user, 'tok/s')],
    ['total tokens/s', rate(sm.total_tok_s, 'tok/s')],
    ['requests/s', rate(sm.requests_per_s, 'req/s')],
    ['goodput', sm.slo_ttft_s || sm.slo_tpot_s ? `${rate(sm.goodput_requests_per_s, 'req/s')} (${fmtPct(sm.slo_attainment)} meet the SLOs)` : 'no SLOs set'],
    ['mean batch', sm.mean_batch == null ? '–' : sm.mean_batch.toFixed(1)],
    ['decode intensity', di == null ? '–' : `${di.toPrecision(3)} FLOP/B` + (ridge ? ` beside the ridge at ${ridge.toFixed(0)} FLOP/B: ${di < ridge ? 'memory' : 'compute'}-bound` : '')],
    ['roofline share', fmtPct(sm.roofline_share) + ' (the passes\' analytic bound over their simulated time)'],
    ['preemptions', String(sm.preemptions)],
  ];
  if (sm.energy_per_token_j != null) {
    items.push(['energy', `${sm.energy_per_token_j.toPrecision(3)} J per output token (${(1 / sm.energy_per_token_j).toFixed(2)} tokens/J), ${sm.avg_power_w.toFixed(0)} W per chip on average`]);
  }
  if (r.speculative) items.push(['speculation', `${r.speculative.tokens} tokens drafted (${r.speculative.draft}), ${sm.tokens_per_step == null ? '' : sm.tokens_per_step.toFixed(2) + ' tokens per step'}`]);
  if (r.disaggregation) items.push(['disaggregation', `${r.disaggregation.prefill_instances} prefill × tp ${r.disaggregation.prefill_tp}, ${r.disaggregation.decode_instances} decode × tp ${r.disaggregation.decode_tp}; ${r.disaggregation.kv_transfers} KV transfers`]);
  $('s-summary').innerHTML = '<dl>' + items.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd data-k="${escapeHtml(k)}">${escapeHtml(v)}</dd>`).join('') + '</dl>';
  renderServeChart();
}

function renderServeChart() {
  const r = views.serve.result, el = $('s-chart');
  const its = r.iteration_records || [];
  if (!its.length) { emptyChart(el, 'the run has no iterations'); return; }
  const every = Math.max(1, Math.ceil(its.length / 3000));  // at most about 3,000 points a series
  const series = [];
  its.forEach((it, i) => {
    if (i % every && i !== its.length - 1) return;
    const t = it.start_s, worker = String(it.worker);
    series.push({t, worker, what: 'batch (sequences)', v: it.prefill_sequences + it.decode_sequences});
    series.push({t, worker, what: 'queue (waiting)', v: it.waiting});
    series.push({t, worker, what: 'KV blocks in use', v: it.kv_blocks_used});
  });
  const reqs = (r.requests || []).filter((q) => q.counted !== false);
  const dist = [];
  for (const q of reqs) {
    if (q.ttft_s > 0) dist.push({metric: 'TTFT (ms)', v: q.ttft_s * 1e3});
    if (q.tpot_s > 0) dist.push({metric: 'TPOT (ms)', v: q.tpot_s * 1e3});
  }
  const width = chartWidth(el, 190);
  const workers = new Set(series.map((s) => s.worker)).size;
  const timeRow = (what) => ({
    width, height: 110, transform: [{filter: {field: 'what', equal: what}}],
    mark: {type: 'line', interpolate: 'step-after', strokeWidth: 1.2},
    encoding: {x: {field: 't', type: 'quantitative', title: 'simulated time (s)'}, y: {field: 'v', type: 'quantitative', title: what},
      ...(workers > 1 ? {color: {field: 'worker', type: 'nominal', title: 'worker'}} : {})},
  });
  const histo = (metric) => {
    // The bins' extent: a little either side when every request has the same value.
    const vs = dist.filter((d) => d.metric === metric).map((d) => d.v);
    let lo = vs.length ? Math.min(...vs) : 0, hi = vs.length ? Math.max(...vs) : 1;
    if (!(hi > lo * (1 + 1e-9))) { lo *= 0.95; hi = hi * 1.05 || 1; }
    return {
      width: width / 2 - 40, height: 140, transform: [{filter: {field: 'metric', equal: metric}}],
      mark: {type: 'bar', color: metric.startsWith('TTFT') ? '#d9822b' : '#2b6cb0'},
      encoding: {x: {field: 'v', type: 'quantitative', bin: {maxbins: 30, extent: [lo, hi]}, title: metric},
        y: {aggregate: 'count', type: 'quantitative', title: 'requests'}},
    };
  };
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: `${r.model} on ${r.hardware}: ${r.summary.requests} requests, ${r.scheduler}`,
    vconcat: [
      {data: {values: series}, vconcat: ['batch (sequences)', 'queue (waiting)', 'KV blocks in use'].map(timeRow)},
      {data: {values: dist}, hconcat: ['TTFT (ms)', 'TPOT (ms)'].map(histo)},
    ],
  };
  return embed(el, spec, views.serve);
}

function initServe(presets) {
  // roofsim serve's default workload as its settings declare it (serving/serving_settings.cpp):
  // Poisson arrivals at the default rate, the default lengths; the machine's defaults are run's.
  const declared = (domain) => Object.fromEntries(presets.settings[domain].settings.map((s) => [s.name, s.default]));
  const run = declared('run'), serving = declared('serving');
  Object.assign(S_DEFAULTS, {hw: run.hw, model: run.model, load: serving.rate, prompt: serving.prompt, output: serving.output,
    scheduler: serving.scheduler, tp: run.tp, pp: run.pp, ep: run.ep});
  $('s-requests').placeholder = serving.requests;  // blank: serve's own count
  for (const h of presets.hardware) addOption($('s-hw'), h, h);
  for (const m of presets.models) addOption($('s-model'), m, m);
  for (const sc of presets.schedulers) addOption($('s-scheduler'), sc, sc);
  buildMoreSettings(presets);
  for (const [k, v] of Object.entries(S_DEFAULTS)) {
    const el = $('s-' + k);
    if (el.type === 'checkbox') el.checked = v; else el.value = v;
  }
  for (const f of S_FIELDS) {
    const el = $('s-' + f);
    el.addEventListener(el.tagName === 'INPUT' && el.type !== 'checkbox' ? 'input' : 'change', () => { views.serve.result = null; serveUrl(); });
  }
  for (const g of S_GENERATED) $('s-x-' + g.name).addEventListener('change', () => { views.serve.result = null; });
  $('s-simulate').addEventListener('click', serveSimulate);
  $('s-cancel').addEventListener('click', () => cancelViewJob(views.serve));
  exportButtons('s', views.serve, () => `roofsim-serve-${$('s-model').value}-${$('s-hw').value}`,
    () => views.serve.result && {settings: views.serve.settings, url: location.href, result: views.serve.result},
    () => {
      const r = views.serve.result;
      if (!r) return null;
      return csvText(r.requests || [], ['id', 'arrival_s', 'first_token_s', 'finish_s', 'ttft_s', 'tpot_s', 'e2e_s', 'prompt_tokens',
        'output_tokens', 'preemptions', 'counted']);
    });
}

function readServeUrl(q) {
  for (const f of S_FIELDS) {
    if (!q.has(f)) continue;
    const el = $('s-' + f);
    if (el.type === 'checkbox') el.checked = q.get(f) === '1' || q.get(f) === 'true';
    else {
      if (el.tagName === 'SELECT' && ![...el.options].some((o) => o.value === q.get(f))) addOption(el, q.get(f), q.get(f));
      el.value = q.get(f);
    }
  }
  return q.get('run') === '1';
}

// --- sweeps ----------------------------------------------------------------------------------
function sweepsUrl() {
  if (activeView !== 'sweeps') return;
  setViewUrl('sweeps', {file: $('w-file').value, x: $('w-x').value, y: $('w-y').value, color: $('w-color').value,
    xlog: $('w-xlog').checked, ylog: $('w-ylog').checked});
}

async function loadSweepList(want) {
  try {
    const list = await api('GET', '/api/sweeps');
    views.sweeps.files = list.files;
    const sel = $('w-file');
    sel.innerHTML = '';
    if (!list.files.length) { vMessage('w', `No sweep files (*.toml) in ${list.dir}.`, 'info'); return; }
    for (const f of list.files) addOption(sel, f.name, f.name + (f.stored ? '' : ' (no store yet)'));
    const pick = list.files.find((f) => f.name === want) || list.files.find((f) => f.stored) || list.files[0];
    sel.value = pick.name;
  } catch (err) {
    vMessage('w', 'Sweeps: ' + err.message);
  }
}

async function loadSweep(axes) {
  const h = views.sweeps, name = $('w-file').value;
  if (!name) return;
  vMessage('w', '');
  const f = (h.files || []).find((x) => x.name === name);
  $('w-about').textContent = f ? f.about : '';
  try {
    h.data = null;
    const d = await api('GET', '/api/sweep?name=' + encodeURIComponent(name));
    if (name !== $('w-file').value) return;
    h.data = d;
    if (d.message) vMessage('w', d.message, 'info');
    // Axes: the numeric columns; settings first (between index and status).
    const rows = d.rows.filter((r) => r.status !== 'error');
    const numeric = d.columns.filter((c) => c !== 'index' && rows.some((r) => typeof r[c] === 'number'));
    const varying = (d.axes || []).filter((c) => new Set(d.rows.map((r) => JSON.stringify(r[c]))).size > 1);
    for (const id of ['w-x', 'w-y']) $(id).innerHTML = '';
    $('w-color').innerHTML = '<option value="">none</option>';
    for (const c of numeric) { addOption($('w-x'), c, c); addOption($('w-y'), c, c); }
    for (const c of d.columns) if (c !== 'error' && c !== 'status') addOption($('w-color'), c, c);
    const first = (list, ...names) => names.find((n) => list.includes(n));
    const numVarying = varying.filter((c) => numeric.includes(c));
    const x = (axes && numeric.includes(axes.x) && axes.x) || first(numVarying, 'batch', 'concurrency') || numVarying[0] || numeric[0] || '';
    const y = (axes && numeric.includes(axes.y) && axes.y) || first(numeric, 'decode_tok_s', 'output_tok_s_per_chip', 'throughput_tok_s', 'tpot_s') || numeric[1] || '';
    const color = axes && axes.color != null && (axes.color === '' || d.columns.includes(axes.color)) ? axes.color : varying.find((c) => c !== x) || '';
    $('w-x').value = x; $('w-y').value = y; $('w-color').value = color;
    if (!axes) { $('w-xlog').checked = ['batch', 'concurrency'].includes(x); $('w-ylog').checked = false; }
    renderSweepTable();
    renderSweepChart();
  } catch (err) {
    vMessage('w', 'Sweep ' + name + ': ' + err.message);
    emptyChart($('w-chart'), err.message);
  } finally {
    sweepsUrl();
  }
}

function fmtCell(v) {
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : v.toPrecision(4);
  return v == null ? '' : String(v);
}

function renderSweepTable() {
  const d = views.sweeps.data;
  const t = $('w-table');
  if (!d) return;
  t.tHead.innerHTML = '<tr>' + d.columns.map((c) => `<th>${escapeHtml(c)}</th>`).join('') + '</tr>';
  const rows = d.rows.slice(0, 1000);
  t.tBodies[0].innerHTML = rows.map((r) => '<tr>' + d.columns.map((c) => `<td>${escapeHtml(fmtCell(r[c]))}</td>`).join('') + '</tr>').join('');
  if (d.rows.length > rows.length) vMessage('w', `The table shows the first ${rows.length} of ${d.rows.length} points; the chart and the exports have them all.`, 'info');
}

function renderSweepChart() {
  const d = views.sweeps.data, el = $('w-chart');
  if (!d) return;
  const x = $('w-x').value, y = $('w-y').value, color = $('w-color').value;
  if (!d.rows.length) { emptyChart(el, d.message || 'the store has no points'); return; }
  if (!x || !y) { emptyChart(el, 'no numeric columns to plot'); return; }
  const xlog = $('w-xlog').checked, ylog = $('w-ylog').checked;
  const pts = d.rows.filter((r) => typeof r[x] === 'number' && typeof r[y] === 'number' && (!xlog || r[x] > 0) && (!ylog || r[y] > 0))
    .map((r) => ({x: r[x], y: r[y], c: color ? (typeof r[color] === 'number' ? r[color] : String(r[color])) : '', index: r.index,
      ...Object.fromEntries((d.settings || []).map((k) => ['s: ' + k, fmtCell(r[k])]))}));
  if (!pts.length) { emptyChart(el, `no point has numbers for both ${x} and ${y}` + (xlog || ylog ? ' (above zero, for a log axis)' : '')); return; }
  const distinct = new Set(pts.map((p) => p.c)).size;
  const tips = Object.keys(pts[0]).filter((k) => k.startsWith('s: ')).map((k) => ({field: k.replace(/\./g, '\\.'), type: 'nominal', title: k.slice(3)}));
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    width: chartWidth(el, 300), height: 380, data: {values: pts},
    title: `${d.name}: ${y} vs ${x}`,
    mark: {type: 'point', filled: true, size: 80, opacity: 0.85},
    encoding: {
      x: {field: 'x', type: 'quantitative', title: x, scale: xlog ? {type: 'log'} : {zero: false}},
      y: {field: 'y', type: 'quantitative', title: y, scale: ylog ? {type: 'log'} : {zero: false}},
      ...(color ? {color: {field: 'c', type: distinct <= 12 ? 'nominal' : 'quantitative', title: color}} : {}),
      tooltip: [{field: 'index', type: 'quantitative'}, ...tips, {field: 'x', type: 'quantitative', title: x}, {field: 'y', type: 'quantitative', title: y}],
    },
  };
  return embed(el, spec, views.sweeps);
}

function initSweeps() {
  for (const id of ['w-x', 'w-y', 'w-color', 'w-xlog', 'w-ylog']) $(id).addEventListener('change', () => { sweepsUrl(); renderSweepChart(); });
  $('w-file').addEventListener('change', () => loadSweep(null));
  exportButtons('w', views.sweeps, () => 'roofsim-sweep-' + ($('w-file').value || 'none').replace(/\.toml$/, ''),
    () => views.sweeps.data && {name: views.sweeps.data.name, url: location.href, points: views.sweeps.data.rows},
    () => views.sweeps.data && views.sweeps.data.rows.length ? csvText(views.sweeps.data.rows, views.sweeps.data.columns) : null);
}

// --- start -----------------------------------------------------------------------------------
async function initViews(presets) {
  initCollective(presets);
  initServe(presets);
  initSweeps();
  for (const b of document.querySelectorAll('#tabs .tab')) b.addEventListener('click', () => showView(b.dataset.view));
  const q = new URLSearchParams(location.search);
  const view = VIEWS.includes(q.get('view')) ? q.get('view') : 'inference';
  showView(view, true);
  let run = false;
  if (view === 'collective') run = readCollectiveUrl(q);
  if (view === 'serve') run = readServeUrl(q);
  const listed = views.sweeps.listed = loadSweepList(view === 'sweeps' ? q.get('file') : null);
  if (view === 'sweeps') {
    await listed;
    await loadSweep(q.has('x') ? {x: q.get('x'), y: q.get('y'), color: q.get('color') || ''} : null);
    if (q.has('xlog') || q.has('ylog')) {
      $('w-xlog').checked = q.get('xlog') === '1';
      $('w-ylog').checked = q.get('ylog') === '1';
      renderSweepChart();
    }
  }
  if (view === 'collective') { collectiveUrl(); if (run) collectiveSimulate(); }
  if (view === 'serve') { serveUrl(); if (run) serveSimulate(); }
  document.body.dataset.viewsReady = '1';
}
