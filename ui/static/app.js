// roofsim ui: the page. Plain JS; the server's JSON API is described in docs/ui.md.
'use strict';

const $ = (id) => document.getElementById(id);
const NUMBER_FIELDS = ['batch', 'prompt', 'gen', 'tp', 'pp', 'ep'];
const SELECT_FIELDS = ['hw', 'model', 'weights_dtype', 'activations_dtype', 'kv_dtype', 'attention', 'near_memory'];
// The form's defaults: the run settings' own (`roofsim settings --json`, served in /api/presets), ''
// where the default is not a value (the checkpoint's formats, the topology the run picks).
const DEFAULTS = {};
// One form field's default from its declared setting.
function declaredDefault(s) {
  if (s.kind === 'whole') return /^[0-9]+$/.test(s.default) ? Number(s.default) : '';
  if (s.choices) return s.choices.includes(s.default) ? s.default : '';
  return s.name === 'hw' || s.name === 'model' ? s.default : '';
}
// What-if knobs: URL key, input id, the module's scale key, the hardware key shown beside it.
const KNOBS = [
  {url: 'bw', id: 'wi-bw', scale: 'hbm.bandwidth', key: 'hbm.bandwidth_gb_per_s', unit: 'GB/s'},
  {url: 'compute', id: 'wi-compute', scale: 'compute', key: 'matrix.macs_per_clock', unit: 'MAC/clock per unit'},
  {url: 'links', id: 'wi-links', scale: 'links.bandwidth', key: 'links.bandwidth_gb_per_s', unit: 'GB/s per link'},
  {url: 'pim', id: 'wi-pim', scale: 'pim.flops_per_clock', key: 'pim.flops_per_clock', unit: 'FLOP/clock per unit'},
];

const state = {
  analysis: null, analysisVar: null, result: null, resultKey: null, resultVar: null,
  jobs: [], view: null, analyzeSeq: 0, knobs: {}, running: false, graph: null, graphSeq: 0,
};
window.roofsimState = state;
// The view on show (views.js switches it); the inference view's settings own the URL only while it shows.
let activeView = new URLSearchParams(location.search).get('view') || 'inference';  // for people poking in the console, and the browser test

// --- formatting ------------------------------------------------------------------------------
const dash = '–';
function fmtMs(s) { return s == null ? dash : (s * 1e3).toFixed(3) + ' ms'; }
function fmtRate(x) { return x == null ? dash : x.toFixed(1); }
function fmtPct(x) { return x == null || !isFinite(x) ? dash : (100 * x).toFixed(1) + '%'; }
function fmtUp(x) { return x == null || !isFinite(x) ? dash : '×' + x.toFixed(2); }
function fmtSi(x, unit) {
  if (x == null || !isFinite(x)) return dash;
  if (x === 0) return '0 ' + unit;
  const p = ['', 'k', 'M', 'G', 'T', 'P', 'E'];
  let i = 0;
  while (Math.abs(x) >= 1000 && i < p.length - 1) { x /= 1000; i++; }
  return x.toPrecision(3) + ' ' + p[i] + unit;
}
// x in the largest of `units` (each `base` times the one before) that keeps it at least 1.
function scaled(x, base, units) {
  let i = 0;
  while (x >= base && i < units.length - 1) { x /= base; i++; }
  return [x, units[i]];
}
// Memory as the CLI prints it (decimal, as HBM capacities are quoted: 80 GB, not 74.5 GiB).
function fmtMem(x) {
  if (x == null) return dash;
  const [v, u] = scaled(x, 1000, ['B', 'kB', 'MB', 'GB', 'TB']);
  return v.toFixed(2) + ' ' + u;
}
// Sizes given in binary units (collective bytes).
function fmtBytes(x) {
  if (x == null) return dash;
  const [v, u] = scaled(x, 1024, ['B', 'KiB', 'MiB', 'GiB', 'TiB']);
  return v.toPrecision(3) + ' ' + u;
}
function fmtTime(s) {
  if (s == null || !isFinite(s)) return dash;
  if (s < 1e-3) return (s * 1e6).toPrecision(3) + ' µs';
  if (s < 1) return (s * 1e3).toPrecision(4) + ' ms';
  return s.toPrecision(4) + ' s';
}
function fmtIntensity(x) { return x == null || !isFinite(x) ? dash : x.toPrecision(3) + ' FLOP/B'; }

// --- API -------------------------------------------------------------------------------------
async function api(method, path, body) {
  const opts = {method, headers: {}};
  if (body !== undefined) {
    opts.headers['Content-Type'] = 'application/json';
    opts.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, opts);
  } catch (e) {
    throw new Error('the roofsim ui server does not answer (' + e.message + '): is it still running?');
  }
  let data = null;
  try { data = await response.json(); } catch (e) { /* not JSON */ }
  if (!response.ok) throw new Error((data && data.error) || (response.status + ' ' + response.statusText));
  return data;
}

// --- fields made from the declared settings ---------------------------------------------------
// A form field for a setting as `roofsim settings --json` declares it: a choice is a select whose
// blank option is the default, a flag a checkbox, the rest an input with the default as
// placeholder; the help is its tooltip.
function settingField(s, prefix) {
  const id = prefix + s.name;
  let input;
  if (s.kind === 'choice') {
    input = document.createElement('select');
    addOption(input, '', 'default (' + s.default + ')');
    for (const c of s.choices) addOption(input, c, c);
  } else {
    input = document.createElement('input');
    input.type = s.kind === 'flag' ? 'checkbox' : s.kind === 'whole' || s.kind === 'number' ? 'number' : 'text';
    if (s.kind === 'number') input.step = 'any';
    if (s.kind !== 'flag') input.placeholder = s.default;
  }
  input.id = id;
  input.title = s.help;
  const label = document.createElement('label');
  label.htmlFor = id;
  label.textContent = s.name.replace(/_/g, ' ') + (s.unit ? ` (${s.unit})` : '');
  const field = document.createElement('div');
  field.className = 'field';
  field.append(label, input);
  return field;
}

// Fields for `list` (declared settings) in `box`, under a heading per group; returns `list`.
function buildSettingFields(box, prefix, list) {
  const groups = new Map();
  for (const s of list) {
    const g = s.group || '';
    if (!groups.has(g)) groups.set(g, []);
    groups.get(g).push(s);
  }
  for (const [name, members] of groups) {
    if (name) {
      const heading = document.createElement('h3');
      heading.textContent = name;
      box.append(heading);
    }
    const row = document.createElement('div');
    row.className = 'row wrap';
    for (const s of members) row.append(settingField(s, prefix));
    box.append(row);
  }
  return list;
}

// The values of the fields made for `list` that were set, as the settings take them.
function generatedValues(list, prefix) {
  const out = {};
  for (const g of list) {
    const el = $(prefix + g.name);
    if (g.kind === 'flag') {
      if (el.checked) out[g.name] = true;
    } else if (el.value.trim() !== '') {
      const text = el.value.trim();
      out[g.name] = g.kind === 'numbers' && text.includes(',') ? text.split(',').map(numberOrText)
        : g.kind === 'whole' || g.kind === 'number' || g.kind === 'numbers' ? numberOrText(text) : text;
    }
  }
  return out;
}

// --- settings and the URL --------------------------------------------------------------------
function settings() {
  const s = {};
  for (const f of SELECT_FIELDS) if ($(f).value !== '') s[f] = $(f).value;
  for (const f of NUMBER_FIELDS) {
    const text = $(f).value.trim();
    const v = Number(text);
    s[f] = text !== '' && Number.isFinite(v) ? v : text;  // the server names what is wrong
  }
  const t = $('topology').value.trim();
  if (t) s.topology = t;
  return Object.assign(s, generatedValues(RUN_GENERATED, 'x-'));
}
// The run settings not on the form above: "More settings", made as the page loads.
const RUN_GENERATED = [];

function knobValue(k) { const v = Number($(k.id).value); return Number.isFinite(v) ? v : 1; }

function edits() {
  const scale = {};
  for (const k of KNOBS) {
    const v = knobValue(k);
    if (v !== 1 && !(k.url === 'pim' && $('wi-pim-row').hidden)) scale[k.scale] = v;
  }
  return Object.keys(scale).length ? {scale} : null;
}

function writeUrl() {
  if (activeView !== 'inference') return;
  const q = new URLSearchParams();
  const s = settings();
  for (const [k, v] of Object.entries(s)) if (String(v) !== String(DEFAULTS[k])) q.set(k, v);
  for (const k of KNOBS) if (knobValue(k) !== 1) q.set(k.url, knobValue(k));
  if (state.result) q.set('run', '1');
  const text = q.toString();
  history.replaceState(null, '', text ? '?' + text : location.pathname);
}

function readUrl() {
  const q = new URLSearchParams(location.search);
  if (activeView !== 'inference') return false;
  for (const f of SELECT_FIELDS) {
    if (!q.has(f)) continue;
    const v = q.get(f);
    if (![...$(f).options].some((o) => o.value === v)) addOption($(f), v, v.startsWith('upload:') ? 'uploaded (' + v.slice(7, 13) + ')' : v);
    $(f).value = v;
  }
  for (const f of NUMBER_FIELDS.concat(['topology'])) if (q.has(f)) $(f).value = q.get(f);
  for (const g of RUN_GENERATED) {
    if (!q.has(g.name)) continue;
    if (g.kind === 'flag') $('x-' + g.name).checked = q.get(g.name) === 'true'; else $('x-' + g.name).value = q.get(g.name);
  }
  for (const k of KNOBS) if (q.has(k.url)) { $(k.id).value = q.get(k.url); $(k.id + '-range').value = q.get(k.url); }
  return q.get('run') === '1';
}

function addOption(select, value, label) {
  const o = document.createElement('option');
  o.value = value;
  o.textContent = label;
  select.appendChild(o);
  return o;
}

// --- messages --------------------------------------------------------------------------------
function showMessage(text, kind) {
  const m = $('message');
  m.textContent = text;
  m.className = kind || 'error';
  m.hidden = !text;
}
function clearMessage() { showMessage('', ''); }

// --- analytic --------------------------------------------------------------------------------
let analyzeTimer = null;
function scheduleAnalyze() {
  clearTimeout(analyzeTimer);
  analyzeTimer = setTimeout(analyze, 250);
}

async function analyze() {
  const seq = ++state.analyzeSeq;
  const s = settings();
  const e = edits();
  writeUrl();
  try {
    const [base, variant] = await Promise.all([
      api('POST', '/api/analyze', {settings: s}),
      e ? api('POST', '/api/analyze', {settings: s, edits: e}) : Promise.resolve(null),
    ]);
    if (seq !== state.analyzeSeq) return;
    state.analysis = base;
    state.analysisVar = variant;
    clearMessage();
    if (!base.fits) {
      showMessage(`${base.model} does not fit: it needs ${fmtMem(base.memory_bytes.total)} per chip and HBM holds ` +
                  `${fmtMem(base.memory_bytes.capacity)}. The bounds below are what it would take; a simulation is refused.`, 'info');
    }
    renderAll();
    if (state.graph) drawGraph();
  } catch (err) {
    if (seq !== state.analyzeSeq) return;
    state.analysis = state.analysisVar = null;
    showMessage(err.message, 'error');
    renderAll(err.message);
  }
}

function renderAnalytic() {
  const a = state.analysis;
  const el = $('analytic');
  if (!a) { el.innerHTML = '<p class="hint">' + dash + '</p>'; return; }
  const bound = (i) => (i >= a.ridge ? '<span class="compute">compute-bound</span>' : '<span class="memory">memory-bound</span>');
  const m = a.memory_bytes;
  const rows = [
    ['hardware', `${a.hardware}: ${fmtSi(a.peak_flops, 'FLOP/s')} (${a.activations_dtype}), HBM ${fmtSi(a.bandwidth, 'B/s')}`, 'hardware'],
    ['ridge point', `${a.ridge.toFixed(1)} FLOP/B (${a.activations_dtype})` +
      Object.entries(a.hardware_summary.ridge || {}).filter(([t]) => t !== a.activations_dtype)
        .map(([t, r]) => `; ${t} ${r.toFixed(0)}`).join(''), 'ridge'],
    ['prefill', `${fmtIntensity(a.prefill_intensity)}, ${bound(a.prefill_intensity)}; bound ${fmtMs(a.bound_ttft_s)}`, 'prefill'],
    ['decode (mean step)', a.decode ? `${fmtIntensity(a.decode_intensity)}, ${bound(a.decode_intensity)}; bound ${fmtMs(a.bound_tpot_s)}` : dash, 'decode'],
    ['decode speed of light', a.decode ? `${fmtMs(a.decode_speed_of_light_s)} per token (weights + KV cache read at HBM bandwidth` +
      (a.near_memory_roof ? `; the near-memory units' GEMVs at their internal ${fmtSi(a.near_memory_roof.bandwidth, 'B/s')})` : ')') : dash, 'sol'],
    ['memory per chip', `${fmtMem(m.total)} of ${fmtMem(m.capacity)} (${fmtPct(m.total / m.capacity)}): weights ${fmtMem(m.weights)}, ` +
      `KV cache ${fmtMem(m.kv_cache)}, activations ${fmtMem(m.activations)}${a.fits ? '' : ' — does not fit'}`, 'memory'],
    ['bound throughput', `${fmtRate(a.bound_throughput_tok_s)} tokens/s` + (a.decode ? `, decode ${fmtRate(a.bound_decode_tok_s)} tokens/s` : ''), 'throughput'],
  ];
  if (state.analysisVar) {
    const v = state.analysisVar;
    rows.push(['what-if bounds', `ridge ${v.ridge.toFixed(1)} FLOP/B; TTFT ${fmtMs(v.bound_ttft_s)}, TPOT ${fmtMs(v.bound_tpot_s)}` +
      (a.decode ? ` (×${(a.bound_tpot_s / v.bound_tpot_s).toFixed(2)} decode)` : ''), 'whatif']);
  }
  el.innerHTML = '<dl>' + rows.map(([k, v, id]) => `<dt>${k}</dt><dd data-k="${id}">${v}</dd>`).join('') + '</dl>';
}

// --- metrics ---------------------------------------------------------------------------------
function metricRows(r, a) {
  // r: a run record (or null); a: the analysis (bounds before a run).
  const src = r || a;
  if (!src) return null;
  const bt = r ? r.bound_ttft_s : a.bound_ttft_s;
  const bp = r ? r.bound_tpot_s : a.bound_tpot_s;
  const btot = r ? r.bound_total_s : a.bound_total_s;
  const batch = src.batch, gen = src.generate;
  return {
    ttft: {sim: r && r.ttft_s, bound: bt, time: true},
    tpot: {sim: r && r.tpot_s, bound: bp, time: true},
    decode: {sim: r && r.decode_tok_s, bound: bp ? batch / bp : null, time: false},
    throughput: {sim: r && r.throughput_tok_s, bound: batch * gen / btot, time: false},
    total: {sim: r && r.total_s, bound: btot, time: true},
    // Energy from the run's events (null where the chip has no [energy] table); no bound.
    tokensj: {sim: r && r.tokens_per_j, bound: null, time: false, digits: 2},
    power: {sim: r && r.avg_power_w, bound: null, time: false, digits: 0},
    // Silicon and cost of the chips (null without [area] / [cost]): tokens/s per 1,000 USD of chips.
    kusd: {sim: r && r.tokens_per_s_per_kusd, bound: null, time: false, digits: 1},
  };
}

function renderMetrics() {
  const base = metricRows(state.result, state.analysis);
  const variant = state.resultVar ? metricRows(state.resultVar, null) : null;
  document.body.classList.toggle('has-variant', !!(state.resultVar || state.analysisVar));
  for (const m of ['ttft', 'tpot', 'decode', 'throughput', 'tokensj', 'power', 'kusd', 'total']) {
    const b = base && base[m];
    const f = b && b.time ? fmtMs : b && b.digits != null ? (x) => (x == null ? dash : x.toFixed(b.digits)) : fmtRate;
    $(`m-${m}-sim`).textContent = b && b.sim != null ? f(b.sim) : dash;
    $(`m-${m}-bound`).textContent = b && b.bound != null ? f(b.bound) : dash;
    $(`m-${m}-pct`).textContent = b && b.sim != null && b.bound != null ? fmtPct(b.time ? b.bound / b.sim : b.sim / b.bound) : dash;
    const v = variant && variant[m];
    $(`m-${m}-var`).textContent = v && v.sim != null ? f(v.sim) : dash;
    // A speed-up for times and rates; for power, the variant's over the base's.
    $(`m-${m}-up`).textContent = v && v.sim != null && b && b.sim != null ? fmtUp(b.time ? b.sim / v.sim : v.sim / b.sim) : dash;
  }
  const notes = (state.result && state.result.notes) || [];
  $('notes').textContent = notes.length ? 'Notes: ' + notes.join('; ') : '';
}

// --- ops table -------------------------------------------------------------------------------
function opKey(o) { return o.phase + '/' + o.name; }

function mergedOps() {
  const src = state.result ? state.result.ops : state.analysis ? state.analysis.ops : [];
  const variant = new Map(((state.resultVar && state.resultVar.ops) || []).map((o) => [opKey(o), o]));
  return src.map((o) => {
    const v = variant.get(opKey(o));
    const sim = o.sim_time_s;
    return {
      phase: o.phase, name: o.name, class: o.class, count: o.count, flops: o.flops, bytes: o.bytes,
      intensity: o.intensity, roof: o.roof, bound_time_s: o.bound_time_s, shape: o.shape || null,
      gap: o.gap ? gapText(o, true) : null,
      sim_time_s: sim == null ? null : sim,
      percent_of_roof: sim ? o.bound_time_s / sim : null,
      variant_sim_time_s: v ? v.sim_time_s : null,
      speedup: v && sim && v.sim_time_s ? sim / v.sim_time_s : null,
    };
  });
}

function renderOps() {
  const ops = mergedOps();
  const hasSim = !!state.result, hasVar = !!state.resultVar;
  // An op's class and shape are in its name's tooltip (and the CSV): the table fits its panel.
  const cols = [['phase', 'phase'], ['name', 'op'], ['count', 'count'], ['flops', 'FLOPs'],
    ['bytes', 'bytes'], ['intensity', 'FLOP/B'], ['roof', 'roof'], ['bound_time_s', 'bound']];
  if (hasSim) cols.push(['sim_time_s', 'simulated'], ['percent_of_roof', '% of roof']);
  if (hasVar) cols.push(['variant_sim_time_s', 'variant'], ['speedup', 'speed-up']);
  if (hasSim && state.result.gap_causes) cols.push(['gap', 'its gap to the bound is']);
  const fmt = {
    count: (x) => (Number.isInteger(x) ? String(x) : x.toFixed(1)), flops: (x) => fmtSi(x, 'FLOP'), bytes: (x) => fmtSi(x, 'B'),
    intensity: (x) => (x ? x.toPrecision(3) : dash), bound_time_s: fmtTime, sim_time_s: fmtTime, percent_of_roof: fmtPct,
    variant_sim_time_s: fmtTime, speedup: fmtUp,
  };
  $('ops').tHead.innerHTML = '<tr>' + cols.map(([k, t]) => `<th class="${k === 'name' || k === 'gap' ? k : ''}">${t}</th>`).join('') + '</tr>';
  const body = $('ops').tBodies[0];
  body.innerHTML = '';
  for (const o of ops) {
    const tr = document.createElement('tr');
    tr.dataset.op = opKey(o);
    for (const [k] of cols) {
      const td = document.createElement('td');
      if (k === 'name') { td.className = 'name'; td.title = [o.class && `class ${o.class}`, o.shape].filter(Boolean).join('; '); }
      if (k === 'gap') td.className = 'gap';
      td.textContent = fmt[k] ? (o[k] == null ? dash : fmt[k](o[k])) : o[k];
      tr.appendChild(td);
    }
    body.appendChild(tr);
  }
}

// --- chart -----------------------------------------------------------------------------------
// The roofs' dash patterns, for the roofs drawn only (the legend lists no roof the chip lacks).
function roofDashes(roofs) {
  const dashes = {'base roof': [1, 0], 'variant roof': [6, 4], 'base near-memory roof': [2, 2], 'variant near-memory roof': [8, 2, 2, 2]};
  const present = Object.keys(dashes).filter((k) => roofs.some((r) => r.hardware === k));
  return {domain: present, range: present.map((k) => dashes[k])};
}

function roofLine(a, label, xmin, xmax) {
  return [
    {x: xmin, y: a.bandwidth * xmin, hardware: label},
    {x: a.ridge, y: a.peak_flops, hardware: label},
    {x: xmax, y: a.peak_flops, hardware: label},
  ];
}

// What an op's time above its bound is made of (roofsim explain), largest parts first:
// "2.1 ms above the bound: memory 68%, launch 17%, latency 11%".
function gapText(o, short = false) {
  if (!o.gap) return 'not explained (tick "explain each op\'s gap" and simulate)';
  const gap = o.sim_time_s - o.bound_time_s;
  if (!(gap > 0)) return 'none';
  const parts = Object.entries(o.gap).filter(([, v]) => v / gap >= 0.05).sort((a, b) => b[1] - a[1]);
  const list = parts.map(([k, v]) => `${k} ${fmtPct(v / gap)}`).join(', ') || 'many small parts';
  return short ? list : `${fmtTime(gap)} above the bound: ${list}`;
}

function chartPoints() {
  const pts = [];
  const add = (ops, run, simulated) => {
    for (const o of ops || []) {
      const t = simulated ? o.sim_time_s : o.bound_time_s;
      if (!(o.flops > 0 && o.bytes > 0 && t > 0)) continue;  // collectives: no FLOPs to place
      pts.push({
        x: o.intensity, y: o.flops / t, phase: o.phase, run, op: o.name, class: o.class,
        instances: o.count % 1 ? o.count.toFixed(1) : String(o.count), FLOPs: fmtSi(o.flops, 'FLOP'),
        bytes: fmtSi(o.bytes, 'B'), intensity: fmtIntensity(o.intensity), time: fmtTime(t),
        bound: fmtTime(o.bound_time_s), 'of roof': fmtPct(o.bound_time_s / t), roof: o.roof,
        shape: o.shape || dash, gap: simulated ? gapText(o) : dash,
      });
    }
  };
  if (state.result) add(state.result.ops, 'base (simulated)', true);
  else if (state.analysis) add(state.analysis.ops, 'analytic bound', false);
  if (state.resultVar) add(state.resultVar.ops, 'variant (simulated)', true);
  return pts;
}

async function renderChart(error) {
  const el = $('chart');
  const a = state.analysis;
  // The old chart goes, and with it its tooltip (vega-tooltip keeps one element on the page).
  if (state.view) { state.view.finalize(); state.view = null; }
  const tip = document.getElementById('vg-tooltip-element');
  if (tip) tip.classList.remove('visible');
  if (!a) {
    state.view = null;
    el.innerHTML = `<div class="chart-empty">No chart: ${escapeHtml(error || 'no analysis yet')}</div>`;
    return;
  }
  if (typeof vegaEmbed === 'undefined') {
    el.innerHTML = '<div class="chart-empty">No chart: the chart libraries did not load (run scripts/install-deps.sh, which runs npm ci --prefix ui)</div>';
    return;
  }
  const pts = chartPoints();
  const xs = pts.map((p) => p.x).concat([a.ridge]);
  const xmin = Math.min(...xs) / 4, xmax = Math.max(...xs) * 4;
  const roofs = roofLine(a, 'base roof', xmin, xmax);
  if (state.analysisVar) roofs.push(...roofLine(state.analysisVar, 'variant roof', xmin, xmax));
  // Near-memory units have a roof of their own: decode GEMVs that run there sit under it.
  if (a.near_memory_roof) roofs.push(...roofLine(a.near_memory_roof, 'base near-memory roof', xmin, xmax));
  if (state.analysisVar && state.analysisVar.near_memory_roof) {
    roofs.push(...roofLine(state.analysisVar.near_memory_roof, 'variant near-memory roof', xmin, xmax));
  }
  const ridges = [{x: a.ridge, label: `ridge ${a.ridge.toFixed(0)} FLOP/B`, hardware: 'base roof', row: 0}];
  if (state.analysisVar && Math.abs(state.analysisVar.ridge / a.ridge - 1) > 1e-9) {
    ridges.push({x: state.analysisVar.ridge, label: `variant ridge ${state.analysisVar.ridge.toFixed(0)}`, hardware: 'variant roof', row: 1});
  }
  const ys = pts.map((p) => p.y).concat(roofs.map((r) => r.y));
  const ymin = Math.min(...ys) / 3, ymax = Math.max(...ys) * 3;
  const decades = (lo, hi) => {
    const out = [];
    for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) if (10 ** e >= lo && 10 ** e <= hi) out.push(10 ** e);
    return out;
  };
  for (const r of ridges) r.py = 14 + 14 * r.row;
  const x = {field: 'x', type: 'quantitative', scale: {type: 'log', domain: [xmin, xmax], nice: false},
    axis: {values: decades(xmin, xmax), format: '~g'}, title: 'arithmetic intensity (FLOP/B)'};
  const y = {field: 'y', type: 'quantitative', scale: {type: 'log', domain: [ymin, ymax], nice: false},
    axis: {values: decades(ymin, ymax), format: '.0s'}, title: 'FLOP/s (per chip)'};
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    width: Math.max(360, el.clientWidth - 200), height: 420,
    title: `${a.model} on ${a.hardware}: batch ${a.batch}, prompt ${a.prompt}, gen ${a.generate}` + (a.tp * a.pp * a.ep > 1 ? `, ${a.tp * a.pp * a.ep} chips (per chip)` : ''),
    layer: [
      {data: {values: roofs}, mark: {type: 'line', color: '#555'},
        encoding: {x, y, strokeDash: {field: 'hardware', type: 'nominal', title: 'roof', scale: roofDashes(roofs)},
          detail: {field: 'hardware'}}},
      {data: {values: ridges}, mark: {type: 'rule', color: '#999', strokeDash: [2, 3]}, encoding: {x: {field: 'x', type: 'quantitative'}}},
      {data: {values: ridges}, mark: {type: 'text', align: 'left', dx: 4, dy: -6, baseline: 'bottom', color: '#666'},
        encoding: {x: {field: 'x', type: 'quantitative'}, y: {field: 'py', type: 'quantitative', scale: null}, text: {field: 'label'}}},
      {data: {values: pts}, mark: {type: 'point', filled: true, size: 70, opacity: 0.85},
        encoding: {x, y,
          color: {field: 'phase', type: 'nominal', scale: {domain: ['prefill', 'decode'], range: ['#d9822b', '#2b6cb0']}},
          shape: {field: 'run', type: 'nominal', scale: {domain: ['analytic bound', 'base (simulated)', 'variant (simulated)'], range: ['diamond', 'circle', 'triangle-up']}},
          tooltip: ['op', 'phase', 'run', 'class', 'shape', 'instances', 'FLOPs', 'bytes', 'intensity', 'time', 'bound', 'of roof', 'roof', 'gap'].map((f) => ({field: f, type: 'nominal'}))}},
    ],
  };
  try {
    const res = await vegaEmbed(el, spec, {actions: false, renderer: 'svg'});
    state.view = res.view;
  } catch (err) {
    state.view = null;
    el.innerHTML = `<div class="chart-empty">No chart: ${escapeHtml(err.message)}</div>`;
  }
}

function escapeHtml(s) { return String(s).replace(/[&<>"]/g, (c) => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'}[c])); }

// Per layer: each decoder layer's simulated time beside its bound, prefill and decode per step.
async function renderLayers() {
  const el = $('layers-chart');
  if (state.layersView) { state.layersView.finalize(); state.layersView = null; }
  const layers = state.result && state.result.layers;
  if (!layers || !layers.length || typeof vegaEmbed === 'undefined') {
    el.innerHTML = '<div class="chart-empty">No chart yet: Simulate runs the model.</div>';
    return;
  }
  const rows = [];
  for (const l of layers) {
    rows.push({layer: l.layer, phase: 'prefill', what: 'simulated', ms: l.prefill_s * 1e3});
    rows.push({layer: l.layer, phase: 'prefill', what: 'bound', ms: l.prefill_bound_s * 1e3});
    if (state.result.decode_steps > 0) {
      rows.push({layer: l.layer, phase: 'decode (per step)', what: 'simulated', ms: l.decode_s * 1e3});
      rows.push({layer: l.layer, phase: 'decode (per step)', what: 'bound', ms: l.decode_bound_s * 1e3});
    }
  }
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    data: {values: rows},
    facet: {row: {field: 'phase', type: 'nominal', title: null, sort: ['prefill', 'decode (per step)']}},
    resolve: {scale: {y: 'independent'}},
    spec: {
      width: Math.max(360, el.clientWidth - 160), height: 140,
      layer: [
        {transform: [{filter: "datum.what === 'simulated'"}], mark: {type: 'bar', color: '#2b6cb0'},
          encoding: {x: {field: 'layer', type: 'ordinal', title: 'layer', axis: {labelOverlap: true}},
            y: {field: 'ms', type: 'quantitative', title: 'ms (ops summed)'},
            tooltip: [{field: 'layer'}, {field: 'ms', format: '.4f', title: 'simulated ms'}]}},
        {transform: [{filter: "datum.what === 'bound'"}], mark: {type: 'tick', color: '#d9822b', thickness: 2},
          encoding: {x: {field: 'layer', type: 'ordinal'}, y: {field: 'ms', type: 'quantitative'},
            tooltip: [{field: 'layer'}, {field: 'ms', format: '.4f', title: 'bound ms'}]}},
      ],
    },
  };
  try {
    const res = await vegaEmbed(el, spec, {actions: false, renderer: 'svg'});
    state.layersView = res.view;
  } catch (err) {
    el.innerHTML = `<div class="chart-empty">No chart: ${escapeHtml(err.message)}</div>`;
  }
}

// The operator graph (POST /api/graph: roofsim.graph drawn by Graphviz), redrawn on every new
// analysis once it has been drawn.
async function drawGraph() {
  const el = $('graph-view');
  const seq = ++state.graphSeq;
  if (!state.graph) el.innerHTML = '<div class="chart-empty">Drawing…</div>';
  try {
    const g = await api('POST', '/api/graph', {settings: settings(), layers: Number($('graph-layers').value)});
    if (seq !== state.graphSeq) return;
    state.graph = g;
    el.innerHTML = g.svg;  // Graphviz's SVG: the labels are escaped there
    $('graph-export-dot').disabled = false;
  } catch (err) {
    if (seq !== state.graphSeq) return;
    state.graph = null;
    el.innerHTML = `<div class="chart-empty">No graph: ${escapeHtml(err.message)}</div>`;
  }
}

function exportGraphDot() {
  if (state.graph) download(baseName() + '-graph.dot', new Blob([state.graph.dot], {type: 'text/vnd.graphviz'}));
}

function renderAll(error) {
  renderAnalytic();
  renderMetrics();
  renderOps();
  renderChart(error);
  renderLayers();
}

// --- simulation jobs -------------------------------------------------------------------------
function setRunning(on) {
  state.running = on;
  $('simulate').disabled = on;
  $('cancel').disabled = !on;
  $('progress').hidden = !on;
}

async function pollJob(job, label, progress) {
  for (;;) {
    await new Promise((r) => setTimeout(r, 250));
    const v = await api('GET', '/api/jobs/' + job.id);
    progress[label] = v.progress;
    showProgress(progress);
    if (v.state === 'done') return v.result;
    if (v.state === 'cancelled') throw new Error('cancelled');
    if (v.state === 'error') throw new Error(v.error);
  }
}

function showProgress(progress) {
  let done = 0, total = 0;
  const parts = [];
  for (const [label, p] of Object.entries(progress)) {
    done += p.done; total += p.total;
    parts.push(`${label}: ${p.what} (${p.done}/${p.total || '?'})`);
  }
  $('progress').max = Math.max(total, 1);
  $('progress').value = done;
  $('progress-text').textContent = parts.join(' · ');
}

async function simulate() {
  if (state.running) return;
  const s = settings(), e = edits();
  const key = JSON.stringify(s);
  const needBase = !(state.result && state.resultKey === key);
  clearMessage();
  setRunning(true);
  state.resultVar = null;
  const progress = {};
  const started = [];
  state.cancelRequested = false;
  state.jobs = [];
  try {
    const start = async (label, body) => {
      if (state.cancelRequested) throw new Error('cancelled');
      const j = await api('POST', '/api/jobs', body);
      started.push([label, j]);
      state.jobs.push(j.id);
      if (state.cancelRequested) throw new Error('cancelled');
    };
    if (needBase) await start('base', {settings: s, explain: $('explain-gap').checked});
    if (e) await start('variant', {settings: s, edits: e});
    for (const [label] of started) progress[label] = {done: 0, total: 0, what: 'starting'};
    showProgress(progress);
    const results = await Promise.all(started.map(([label, j]) => pollJob(j, label, progress)));
    started.forEach(([label], i) => {
      if (label === 'base') { state.result = results[i]; state.resultKey = key; } else state.resultVar = results[i];
    });
    $('progress-text').textContent = `done in ${started.length} process${started.length > 1 ? 'es' : ''}`;
    writeUrl();
    renderAll();
  } catch (err) {
    for (const id of state.jobs) api('POST', `/api/jobs/${id}/cancel`).catch(() => {});
    if (err.message === 'cancelled') {
      $('progress-text').textContent = 'cancelled';
    } else {
      showMessage('Simulation: ' + err.message, 'error');
      $('progress-text').textContent = '';
    }
  } finally {
    state.jobs = [];
    setRunning(false);
  }
}

async function cancel() {
  state.cancelRequested = true;
  const ids = state.jobs.slice();
  await Promise.all(ids.map((id) => api('POST', `/api/jobs/${id}/cancel`).catch(() => {})));
}

// --- uploads ---------------------------------------------------------------------------------
// The hardware TOML as edited in the page becomes an upload of its own (checked by the same
// loader as a file: a bad value gets its line and key).
async function applyEditedHardware() {
  const name = (state.hwName || 'hardware').replace(/[^A-Za-z0-9_.-]/g, '_').replace(/(-edited)+$/, '') + '-edited.toml';
  try {
    const r = await api('POST', '/api/upload', {kind: 'hardware', text: $('hw-toml').value, filename: name});
    let opt = [...$('hw').options].find((o) => o.value === r.id);
    if (!opt) opt = addOption($('hw'), r.id, `${r.name} (edited in the page)`);
    $('hw').value = r.id;
    clearMessage();
    settingsChanged();
    loadHardwareKnobs();
  } catch (err) {
    showMessage('Edited hardware TOML: ' + err.message, 'error');
  }
}

async function upload(input, kind, select) {
  const file = input.files[0];
  if (!file) return;
  try {
    const text = await file.text();
    const r = await api('POST', '/api/upload', {kind, text, filename: file.name});
    let opt = [...select.options].find((o) => o.value === r.id);
    if (!opt) opt = addOption(select, r.id, `${r.name} (uploaded ${r.filename})`);
    select.value = r.id;
    clearMessage();
    settingsChanged();
  } catch (err) {
    showMessage(`${kind === 'hardware' ? 'Hardware' : 'Model'} upload ${file.name}: ${err.message}`, 'error');
  } finally {
    input.value = '';
  }
}

// --- export ----------------------------------------------------------------------------------
function download(name, blobOrUrl) {
  const a = document.createElement('a');
  a.href = typeof blobOrUrl === 'string' ? blobOrUrl : URL.createObjectURL(blobOrUrl);
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
}

function baseName() {
  const s = settings();
  return `roofsim-${s.model}-${s.hw}-b${s.batch}`.replace(/[^A-Za-z0-9_.-]/g, '_');
}

function exportJson() {
  const out = {settings: settings(), whatif: edits(), url: location.href, analysis: state.analysis, result: state.result,
    variant: state.resultVar || state.analysisVar ? {analysis: state.analysisVar, result: state.resultVar} : null};
  download(baseName() + '.json', new Blob([JSON.stringify(out, null, 1)], {type: 'application/json'}));
}

function exportCsv() {
  const ops = mergedOps();
  const cols = ['phase', 'name', 'class', 'count', 'flops', 'bytes', 'intensity', 'roof', 'bound_time_s', 'sim_time_s',
    'percent_of_roof', 'variant_sim_time_s', 'speedup', 'shape', 'gap'];
  const cell = (v) => (v == null ? '' : /[",\n]/.test(String(v)) ? '"' + String(v).replace(/"/g, '""') + '"' : String(v));
  const text = [cols.join(',')].concat(ops.map((o) => cols.map((c) => cell(o[c])).join(','))).join('\n') + '\n';
  download(baseName() + '-ops.csv', new Blob([text], {type: 'text/csv'}));
}

async function exportChart(kind) {
  if (!state.view) { showMessage('No chart to export yet.', 'error'); return; }
  if (kind === 'svg') download(baseName() + '.svg', new Blob([await state.view.toSVG()], {type: 'image/svg+xml'}));
  else download(baseName() + '.png', await state.view.toImageURL('png', 2));
}

// --- wiring ----------------------------------------------------------------------------------
async function loadHardwareKnobs() {
  try {
    const h = await api('GET', '/api/hardware?hw=' + encodeURIComponent($('hw').value));
    state.knobs = h.knobs;
    state.hwName = h.name;
    $('hw-toml').value = h.toml || '';
    $('wi-pim-row').hidden = !('pim.flops_per_clock' in h.knobs);
    updateKnobText();
  } catch (err) {
    state.knobs = {};
  }
}

function updateKnobText() {
  for (const k of KNOBS) {
    const base = state.knobs[k.key];
    $(k.id + '-abs').textContent = base == null ? '' : `${base} → ${+(base * knobValue(k)).toPrecision(4)} ${k.unit}`;
  }
}

function settingsChanged() {
  // New settings: the simulated results no longer match.
  state.result = state.resultVar = null;
  state.resultKey = null;
  if (!state.running) $('progress-text').textContent = '';
  scheduleAnalyze();
}

function whatifChanged() {
  state.resultVar = null;
  updateKnobText();
  scheduleAnalyze();
}

async function init() {
  let presets;
  try {
    presets = await api('GET', '/api/presets');
  } catch (err) {
    showMessage(err.message, 'error');
    return;
  }
  for (const h of presets.hardware) addOption($('hw'), h, h);
  // Presets, then the shipped Hugging Face configs by hub id, each with its size.
  const rows = new Map((presets.model_rows || []).map((r) => [r.name, r]));
  for (const m of presets.models) {
    const r = rows.get(m);
    const params = (x) => (x >= 1e12 ? (x / 1e12).toPrecision(3) + 'T' : (x / 1e9).toPrecision(3) + 'B');
    const size = r ? ` (${params(r.total_params)}` + (r.active_params_per_token < r.total_params * 0.99 ?
      `, ${params(r.active_params_per_token)} active)` : ')') : '';
    addOption($('model'), m, m + size);
  }
  const declared = Object.fromEntries(presets.settings.run.settings.map((s) => [s.name, s]));
  for (const f of SELECT_FIELDS.concat(NUMBER_FIELDS, ['topology'])) DEFAULTS[f] = declaredDefault(declared[f]);
  for (const [field, list] of [['weights_dtype', presets.dtypes.weights], ['activations_dtype', presets.dtypes.activations],
    ['kv_dtype', presets.dtypes.kv], ['attention', presets.attention]]) {
    // A default that is no value of the list ("the checkpoint's") is the empty choice, sent as nothing.
    if (DEFAULTS[field] === '') addOption($(field), '', 'default: ' + declared[field].default);
    for (const v of list) addOption($(field), v, v);
  }
  $('near_memory').replaceChildren();
  for (const v of presets.near_memory) addOption($('near_memory'), v, v);
  const onForm = new Set(SELECT_FIELDS.concat(NUMBER_FIELDS, ['topology']));
  RUN_GENERATED.push(...buildSettingFields($('more-fields'), 'x-', presets.settings.run.settings.filter((s) => !onForm.has(s.name))));
  for (const g of RUN_GENERATED) $('x-' + g.name).addEventListener('change', settingsChanged);
  for (const [k, v] of Object.entries(DEFAULTS)) if ($(k)) $(k).value = v;
  const run = readUrl();
  for (const f of SELECT_FIELDS.concat(NUMBER_FIELDS, ['topology'])) {
    $(f).addEventListener('change', settingsChanged);
    if ($(f).tagName === 'INPUT') $(f).addEventListener('input', settingsChanged);
  }
  $('hw').addEventListener('change', loadHardwareKnobs);
  for (const k of KNOBS) {
    const range = $(k.id + '-range');
    range.addEventListener('input', () => { $(k.id).value = range.value; whatifChanged(); });
    $(k.id).addEventListener('input', () => { range.value = $(k.id).value; whatifChanged(); });
  }
  $('hw-file').addEventListener('change', () => upload($('hw-file'), 'hardware', $('hw')));
  $('hw-apply').addEventListener('click', applyEditedHardware);
  $('model-file').addEventListener('change', () => upload($('model-file'), 'model', $('model')));
  $('simulate').addEventListener('click', simulate);
  $('graph-draw').addEventListener('click', drawGraph);
  $('graph-layers').addEventListener('change', () => { if (state.graph) drawGraph(); });
  $('graph-export-dot').addEventListener('click', exportGraphDot);
  $('cancel').addEventListener('click', cancel);
  $('export-json').addEventListener('click', exportJson);
  $('export-csv').addEventListener('click', exportCsv);
  $('export-svg').addEventListener('click', () => exportChart('svg'));
  $('export-png').addEventListener('click', () => exportChart('png'));
  if (typeof initViews === 'function') initViews(presets);
  await loadHardwareKnobs();
  await analyze();
  document.body.dataset.ready = '1';
  if (run && state.analysis) simulate();
}

init();
