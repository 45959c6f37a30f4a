// The nmws dashboard: one page, a view per location hash, drawn from the service's JSON API
// (/api/overview, /api/paths, /api/observations, /api/results, /api/tests, /api/schedules,
// /api/archivers).
// Every plot keeps the table it was drawn from in window.nmws.plots[id] (what its CSV holds),
// so a reader, or a test, can compare what is shown with what the archive stored.
'use strict';

const nmws = window.nmws = { plots: {}, charts: {} };

// ---- small helpers -------------------------------------------------------------------------

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null) continue;
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c !== undefined && c !== null) e.append(c instanceof Node ? c : String(c));
  }
  return e;
}

async function api(path, options) {
  let r;
  try {
    r = await fetch(path, Object.assign({ headers: { Accept: 'application/json' } }, options));
  } catch (e) {
    throw new Error('The service could not be reached (' + e.message + '): is it running, and is the network up?');
  }
  if (!r.ok) {
    const text = await r.text();
    let detail = text;
    try {
      const j = JSON.parse(text);
      if (j && j.error) detail = j.error;
    } catch (ignored) { /* not JSON: the text as sent */ }
    const e = new Error(inWords(r.status, detail));
    e.status = r.status;
    throw e;
  }
  return r.status === 200 ? r.json() : null;
}

/** An answer that is not a result, said as a reader would (no bare "HTTP 404"). */
function inWords(status, detail) {
  const why = detail ? ': ' + detail : '';
  if (status === 404) return 'Nothing is stored here' + (detail ? why : ': it may never have been measured, or was removed by retention');
  if (status === 401 || status === 403) return 'Not allowed: this browser\'s credentials may not read this' + why;
  if (status === 400) return 'The service refused the request' + why;
  if (status === 429 || status === 503) return 'The service is busy' + why + '; try again shortly';
  return 'The service failed to answer (status ' + status + ')' + why;
}

/** A time as a reader reads it: local, to the second (an ISO time may carry nanoseconds). */
function humanTime(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  const p = n => String(n).padStart(2, '0');
  return d.getFullYear() + '-' + p(d.getMonth() + 1) + '-' + p(d.getDate()) + ' ' + p(d.getHours()) + ':' + p(d.getMinutes())
    + ':' + p(d.getSeconds());
}

/** An age as the grid's API words it (grid/Ages.java): "42 s", "5 min", "3 h 10 min", "2 d 4 h". */
function ageWords(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 120) return s + ' s';
  const m = Math.floor(s / 60);
  if (m < 120) return m + ' min';
  const h = Math.floor(m / 60);
  if (h < 48) return h + ' h' + (m % 60 ? ' ' + (m % 60) + ' min' : '');
  return Math.floor(h / 24) + ' d' + (h % 24 ? ' ' + (h % 24) + ' h' : '');
}

function showMessage(text) {
  const m = document.getElementById('message');
  m.textContent = text || '';
  m.hidden = !text;
}

function fmt(v, digits) {
  if (v === undefined || v === null || Number.isNaN(v)) return '';
  return Number(v).toFixed(digits === undefined ? 3 : digits).replace(/\.?0+$/, '');
}

function params() {
  const q = location.hash.indexOf('?');
  return new URLSearchParams(q < 0 ? '' : location.hash.slice(q + 1));
}

function query(o) {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(o)) if (v !== undefined && v !== null && v !== '') p.set(k, v);
  return p.toString();
}

// ---- plots: ECharts on a canvas (PNG), its server-side renderer for SVG, the table as CSV ----

function download(name, blob) {
  const a = el('a', { href: URL.createObjectURL(blob), download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

function csv(table) {
  const cell = v => {
    const s = v === undefined || v === null ? '' : String(v);
    return /[",\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
  };
  return [table.columns, ...table.rows].map(r => r.map(cell).join(',')).join('\n') + '\n';
}

/**
 * Draws one plot into container: option is the ECharts option (without title), table
 * {columns, rows} the data it shows, kept for CSV and for readers of window.nmws.plots.
 */
function plot(container, id, title, option, table, note) {
  const div = el('div', { class: 'chart' });
  const tools = el('span', { class: 'tools' });
  const fig = el('figure', { class: 'plot', id: 'plot-' + id, 'data-rows': table.rows.length },
    el('figcaption', {}, el('strong', {}, title), tools), div, note ? el('p', { class: 'note' }, note) : null);
  container.append(fig);
  nmws.plots[id] = { title, columns: table.columns, rows: table.rows };
  if (table.rows.length === 0) {
    div.replaceWith(el('p', { class: 'empty' }, table.empty || 'no data'));
    return null;
  }
  const full = Object.assign({ animation: false, tooltip: { trigger: 'item' },
    grid: { left: 70, right: 30, top: 40, bottom: 50 },
    legend: { top: 0 } }, option);
  const chart = echarts.init(div, null, { renderer: 'canvas' });
  chart.setOption(full);
  nmws.charts[id] = chart;
  tools.append(
    el('button', { type: 'button', 'data-download': 'png', onclick: () => {
      // decoded here: fetching the data: URL would be a connection the page's policy refuses
      const url = chart.getDataURL({ type: 'png', pixelRatio: 2, backgroundColor: '#fff' });
      const bin = atob(url.slice(url.indexOf(',') + 1));
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      download(id + '.png', new Blob([bytes], { type: 'image/png' }));
    } }, 'PNG'),
    el('button', { type: 'button', 'data-download': 'svg', onclick: () => {
      // The same option drawn by ECharts' SVG renderer (server-side mode: no DOM needed).
      const svg = echarts.init(null, null, { renderer: 'svg', ssr: true, width: div.clientWidth, height: div.clientHeight });
      svg.setOption(Object.assign({ backgroundColor: '#fff' }, full));
      const text = svg.renderToSVGString();
      svg.dispose();
      download(id + '.svg', new Blob([text], { type: 'image/svg+xml' }));
    } }, 'SVG'),
    el('button', { type: 'button', 'data-download': 'csv', onclick: () =>
      download(id + '.csv', new Blob([csv(table)], { type: 'text/csv' })) }, 'CSV'));
  return chart;
}

/** What a chart draws now, read back from ECharts: series name and data. */
nmws.plotted = id => {
  const c = nmws.charts[id];
  return c ? c.getOption().series.map(s => ({ name: s.name, type: s.type, data: s.data })) : null;
};

window.addEventListener('resize', () => Object.values(nmws.charts).forEach(c => c.isDisposed() || c.resize()));

function valueAxis(name, extra) {
  return Object.assign({ type: 'value', name, nameLocation: 'middle', nameGap: 35, scale: true }, extra);
}

/**
 * Equal-width bins over values; each value goes to the bin whose [lo, hi) holds it (the last
 * bin includes its hi), compared against the edges themselves so a reader recounting with
 * the edges gets the same counts.
 */
function histogram(values, maxBins) {
  if (values.length === 0) return [];
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) { if (v < min) min = v; if (v > max) max = v; }
  // Values all alike make one bin [v, v + 1): more would need edges past the largest value.
  const n = max > min ? Math.max(1, Math.min(maxBins || 60, Math.ceil(Math.sqrt(values.length)))) : 1;
  const width = max > min ? (max - min) / n : 1;
  const edges = [];
  for (let i = 0; i <= n; i++) edges.push(i === n ? (max > min ? max : min + width) : min + i * width);
  const counts = new Array(n).fill(0);
  for (const v of values) {
    let i = Math.min(n - 1, Math.max(0, Math.floor((v - min) / width)));
    while (i > 0 && v < edges[i]) i--;
    while (i < n - 1 && v >= edges[i + 1]) i++;
    counts[i]++;
  }
  return counts.map((c, i) => [edges[i], edges[i + 1], c]);
}

function histogramPlot(container, id, title, axisName, rows, extraSeries, note) {
  // Each bar spans its bin's edges exactly (a custom series: ECharts' bars on a value axis take
  // their width from the number of bars, so two or three bins drew bars wider than their bins).
  const series = [{ name: 'frames', type: 'custom', encode: { x: [0, 1], y: 2 }, data: rows,
    renderItem: (params, api) => {
      const top = api.coord([api.value(0), api.value(2)]);
      const bottom = api.coord([api.value(1), 0]);
      const gap = Math.min(1, (bottom[0] - top[0]) / 10);
      return { type: 'rect', style: api.style(),
        shape: { x: top[0] + gap / 2, y: top[1], width: Math.max(1, bottom[0] - top[0] - gap), height: bottom[1] - top[1] } };
    } }].concat(extraSeries || []);
  return plot(container, id, title, {
    xAxis: valueAxis(axisName), yAxis: valueAxis('count', { scale: false }), series,
  }, { columns: ['binFrom', 'binTo', 'count'].concat((extraSeries || []).map(s => s.name)),
    rows: rows.map((r, i) => r.concat((extraSeries || []).map(s => s.data[i][1]))) }, note);
}

// ---- views ---------------------------------------------------------------------------------

const views = {};

// ---- the mesh: one grid of test definitions, from any point ---------------------------------

/** The thresholds form (warn, bad) the grid's fresh cells are coloured by; onchange redraws. */
function thresholdForm(onchange) {
  const t = { rttMs: [50, 150], lossPercent: [0.1, 1], throughputMbps: [100, 10] };
  const inputs = {};
  const form = el('div', { class: 'thresholds' }, 'Thresholds for fresh results (warn, bad): ');
  for (const [k, label] of [['rttMs', 'RTT ms'], ['lossPercent', 'loss %'], ['throughputMbps', 'throughput below Mbit/s']]) {
    inputs[k] = [0, 1].map(i => el('input', { type: 'number', step: 'any', value: t[k][i], id: 'threshold-' + k + '-' + i,
      onchange: () => onchange() }));
    form.append(el('label', {}, label + ' ', inputs[k][0], ' ', inputs[k][1]));
  }
  form.limits = k => inputs[k].map(i => parseFloat(i.value));
  return form;
}

/** 0 (ok), 1 (warn) or 2 (bad): the worst of a result's figures against the thresholds. */
function thresholdLevel(figures, limits) {
  let level = 0;
  for (const k of ['rttMs', 'lossPercent']) {
    if (figures[k] !== undefined) { const [w, b] = limits(k); level = Math.max(level, figures[k] >= b ? 2 : figures[k] >= w ? 1 : 0); }
  }
  if (figures.throughputMbps !== undefined) {
    const [w, b] = limits('throughputMbps');
    const v = figures.throughputMbps;
    level = Math.max(level, v < b ? 2 : v < w ? 1 : 0);
  }
  return level;
}

const STATE_WORDS = { ok: 'fresh', stale: 'stale', failing: 'failing', pending: 'not run yet' };

/** One definition of a cell: its name, its latest figures, their age and, unless fresh, its state in words. */
function definitionBlock(d, groups) {
  const r = d.result;
  const div = el('div', { class: 'definition ' + d.state, 'data-name': d.name, 'data-state': d.state,
    title: d.name + (Object.keys(d.parameters || {}).length ? ' (' + paramText(d.parameters) + ')' : '')
      + (d.periodSeconds ? ', every ' + ageWords(d.periodSeconds) : '') + ': ' + d.reason });
  const head = el('div', { class: 'definition-name' }, d.definition
    + (d.origin === 'psconfig' ? ' (pSConfig)' : d.origin === 'opensearch' ? ' (OpenSearch)' : ''));
  if (d.via === 'self' || d.via === 'archive') {
    head.replaceChildren(el('a', { href: '#path?' + query({ dst: d.dst }) }, head.textContent));
  }
  div.append(head);
  if (r) {
    for (const { name: k, label, unit } of groups) {
      if (r.figures[k] !== undefined) div.append(el('div', { 'data-figure': k, 'data-value': r.figures[k] },
        label + ' ' + fmt(r.figures[k]) + ' ' + unit));
    }
    div.append(el('div', { class: 'age', 'data-age': r.ageSeconds }, ageWords(r.ageSeconds) + ' ago'));
  } else {
    div.append(el('div', { class: 'age' }, 'no result yet'));
  }
  if (d.state !== 'ok' || !d.enabled) div.append(el('div', { class: 'state-words' },
    (STATE_WORDS[d.state] || d.state) + (d.enabled ? '' : ', disabled')));
  return div;
}

/** Parameters as "k=v k=v", by name: the same set always reads the same. */
function paramText(p) {
  return Object.entries(p || {}).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([k, v]) => k + '=' + v).join(' ');
}

/** Draws the grid into a table; returns a function that colours its fresh cells by the thresholds. */
function definitionGrid(table, g, form) {
  const cells = new Map(g.cells.map(c => [c.src + '\n' + c.dst, c]));
  const points = new Map(g.points.map(p => [p.name, p]));
  table.replaceChildren(el('tr', {}, el('th', {}, 'source \\ destination'), g.columns.map(c => el('th', {}, c))));
  table.dataset.generated = g.generated;
  const fresh = [];
  for (const r of g.rows) {
    const p = points.get(r);
    const down = p && p.reachable === false;
    const tr = el('tr', { 'data-point': r }, el('th', { class: down ? 'unreachable' : null, title: down ? p.error : null }, r,
      down ? el('div', { class: 'state-words' }, 'unreachable') : null));
    for (const c of g.columns) {
      const cell = cells.get(r + '\n' + c);
      const td = el('td', { 'data-src': r, 'data-dst': c });
      if (down && r !== c) {
        td.className = 'unreachable';
        td.dataset.state = 'unreachable';
        td.textContent = r + ' did not answer';
        td.title = r + ' ' + p.error;
      } else if (cell) {
        td.dataset.state = cell.state;
        for (const d of cell.definitions) td.append(definitionBlock(d, g.groups));
        if (cell.state === 'ok') fresh.push([td, cell]);
        else td.className = cell.state;
      } else if (r !== c) {
        td.className = 'none';
        td.textContent = 'no test defined';
      }
      tr.append(td);
    }
    table.append(tr);
  }
  return () => {
    for (const [td, cell] of fresh) {
      let level = 0;
      for (const d of cell.definitions) if (d.result) level = Math.max(level, thresholdLevel(d.result.figures, form.limits));
      td.className = ['ok', 'warn', 'bad'][level];
    }
  };
}

/** The newest stored result per pair, whatever test it came from (on-demand ones too): what the archive holds. */
function latestTable(o) {
  const cells = new Map(o.cells.map(c => [c.src + '\n' + c.dst, c]));
  const table = el('table', { class: 'grid latest', id: 'mesh-grid', 'data-source': o.source },
    el('tr', {}, el('th', {}, 'source \\ destination'), o.columns.map(c => el('th', {}, c))));
  for (const r of o.rows) {
    const tr = el('tr', {}, el('th', {}, r));
    for (const c of o.columns) {
      const cell = cells.get(r + '\n' + c);
      const td = el('td', { 'data-src': r, 'data-dst': c });
      if (cell) {
        for (const { name: k, label, unit } of o.groups) {
          if (cell[k]) td.append(el('div', { 'data-figure': k, 'data-value': cell[k].value, title: cell[k].test + ' at ' + humanTime(cell[k].at) },
            label + ' ' + fmt(cell[k].value) + ' ' + unit));
        }
      } else if (r !== c) {
        td.textContent = 'no results';
      }
      tr.append(td);
    }
    table.append(tr);
  }
  return table;
}

/** How often the shown grid is read again (a stopped point shows as unreachable by the next). */
const GRID_REFRESH_MS = 30000;

views.overview = async main => {
  const [g, o] = await Promise.all([api('/api/grid'), api('/api/overview')]);
  const table = el('table', { class: 'grid', id: 'definition-grid' });
  let colour = () => {};
  const form = thresholdForm(() => colour());
  colour = definitionGrid(table, g, form);
  colour();
  const status = el('p', { class: 'note', id: 'grid-status' });
  const said = grid => {
    const down = grid.points.filter(p => p.reachable === false);
    status.textContent = 'Read ' + humanTime(grid.generated) + ' from ' + grid.point + '; '
      + (grid.cells.length ? grid.cells.reduce((n, c) => n + c.definitions.length, 0) + ' test definitions' : 'no test is defined yet')
      + (down.length ? '; not answering: ' + down.map(p => p.name).join(', ') : '') + '. Read again every ' + GRID_REFRESH_MS / 1000 + ' s.';
  };
  said(g);
  const key = el('p', { class: 'key' }, 'Each cell holds the pair\'s test definitions (schedules, mesh groups, pSConfig tasks) '
    + 'with their latest result and its age. ',
  el('span', { class: 'sample ok' }, 'fresh'), ' ', el('span', { class: 'sample warn' }, 'fresh, over the warn threshold'), ' ',
  el('span', { class: 'sample bad' }, 'fresh, over the bad threshold'), ' ',
  el('span', { class: 'sample stale' }, 'stale: older than ' + (g.staleAfterPeriods === 1 ? 'one period'
    : g.staleAfterPeriods + ' periods')), ' ',
  el('span', { class: 'sample failing' }, 'failing: its last two runs gave no result'), ' ',
  el('span', { class: 'sample pending' }, 'not run yet'), ' ',
  el('span', { class: 'sample unreachable' }, 'point not answering'));
  main.append(el('h2', {}, 'Mesh'), key, form, table, status,
    el('details', { id: 'latest-any' }, el('summary', {}, 'Latest stored result per pair, any test (on-demand tests included)'),
      el('p', { class: 'note' }, o.source === 'mesh' ? 'Points of the configured mesh; the newest stored result of any test per pair.'
        : 'No mesh file configured: sources and destinations of the stored results.'), latestTable(o)));
  const timer = setInterval(async () => {
    if (!document.body.contains(table)) { clearInterval(timer); return; }
    try {
      const again = await api('/api/grid');
      colour = definitionGrid(table, again, form);
      colour();
      said(again);
    } catch (e) {
      status.textContent = 'Could not read the grid again: ' + e.message;
    }
  }, GRID_REFRESH_MS);
};

views.paths = async main => {
  const paths = await api('/api/paths?limit=500');
  const table = el('table', { id: 'paths' }, el('tr', {}, ['point', 'test', 'source', 'destination', 'parameters',
    'results', 'first', 'last'].map(h => el('th', {}, h))));
  for (const p of paths) {
    table.append(el('tr', {},
      el('td', {}, p.measurementPoint), el('td', {}, p.test), el('td', {}, p.src || ''),
      el('td', {}, el('a', { href: '#path?' + query({ dst: p.dst, src: p.src }) }, p.dst)),
      el('td', {}, Object.entries(p.parameters).map(([k, v]) => k + '=' + v).join(' ')),
      el('td', { class: 'num' }, p.count), el('td', {}, humanTime(p.first)), el('td', {}, humanTime(p.last))));
  }
  main.append(el('h2', {}, 'Stored paths'), table);
};

/** Summaries of one test kind on the path, oldest first. */
function observations(test, dst, src, limit) {
  return api('/api/observations?' + query({ test, dst, src, limit: limit || 500 })).then(r => r.results);
}

// ---- a path: one line per test definition, over a chosen time range -------------------------

const RANGES = [['1h', 'last hour', 3600e3], ['6h', 'last 6 hours', 6 * 3600e3], ['24h', 'last 24 hours', 24 * 3600e3],
  ['7d', 'last 7 days', 7 * 86400e3], ['30d', 'last 30 days', 30 * 86400e3], ['all', 'everything stored', null]];

/**
 * The path's charts: which figure groups the page draws, in order, and their titles. What each
 * draws comes from the kinds themselves (/api/kinds: every figure marked with a chart), so a new
 * kind or figure shows here without a line of this file.
 */
const PATH_CHARTS = [['rttMs', 'path-rtt', 'Round-trip time (median)'], ['owdMs', 'path-owd', 'One-way delay (median)'],
  ['lossPercent', 'path-loss', 'Loss'], ['throughputMbps', 'path-throughput', 'Throughput']];

let kindsAsked = null;
/** Every kind's facts, once a page load. */
function kinds() {
  if (!kindsAsked) kindsAsked = api('/api/kinds').catch(e => { kindsAsked = null; throw e; });
  return kindsAsked;
}

/**
 * Each chart as [id, title, unit, sources], a source [test, summary figure, its series' name where a
 * chart mixes kinds]: a kind's headline figure of the chart's group first (TCP's throughput before
 * UDP's received rate), else in the kinds' order.
 */
function pathCharts(all) {
  return PATH_CHARTS.map(([group, id, title]) => {
    const sources = [];
    for (const k of all) {
      for (const f of k.figures) {
        if (f.chart === group) sources.push({ head: f.group === group ? 0 : 1, unit: f.unit, src: [k.test, f.name, f.chartLabel] });
      }
    }
    sources.sort((a, b) => a.head - b.head);
    return [id, title, sources.length ? sources[0].unit : '', sources.map(x => x.src)];
  });
}

/** The figures that sum up one test in a table: what its kind draws on the charts, else its first declared figure. */
function briefFigures(all, test) {
  const k = all.find(x => x.test === test);
  if (!k) return [];
  const charted = k.figures.filter(f => f.chart).map(f => f.name);
  return charted.length ? charted : k.figures.filter(f => f.name).slice(0, 1).map(f => f.name);
}

/** The value at quantile q of sorted values, interpolated between ranks (R-7, as numpy and R default). */
function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  return sorted[lo] + (h - lo) * ((sorted[Math.min(lo + 1, sorted.length - 1)]) - sorted[lo]);
}

/**
 * Axis bounds that one spike cannot flatten: the 1st to 99th percentile widened by a tenth of
 * their span; values outside are outliers, drawn at the edge with a marker. log: only values > 0.
 */
function robustBounds(values, log) {
  const v = values.filter(x => Number.isFinite(x) && (!log || x > 0)).sort((a, b) => a - b);
  if (v.length === 0) return null;
  const lo = quantile(v, 0.01);
  const hi = quantile(v, 0.99);
  if (log) return { min: lo / 1.5, max: hi * 1.5 };
  const pad = hi > lo ? (hi - lo) / 10 : hi !== 0 ? Math.abs(hi) / 10 : 1; // all alike: room around them
  return { min: lo >= 0 && lo - pad < 0 ? 0 : lo - pad, max: hi + pad };
}

/** A definition's results as a line that breaks where runs are missing: a gap longer than period + slip + half a period. */
function withGaps(points, periodSeconds, slipSeconds) {
  const limitMs = (1.5 * periodSeconds + slipSeconds) * 1000;
  const out = [];
  for (let i = 0; i < points.length; i++) {
    if (i > 0 && points[i][0] - points[i - 1][0] > limitMs) out.push([(points[i][0] + points[i - 1][0]) / 2, null]);
    out.push(points[i]);
  }
  return out;
}

function pathChart(container, [id, title, unit, sources], found, defs, opts) {
  const rows = [];
  const series = [];
  const all = [];
  const mixed = sources.filter(([t]) => (found[t] || []).length > 0).length > 1;
  for (const [test, datum, what] of sources) {
    // one series per definition, and one per set of parameters asked for on demand
    const groups = new Map();
    for (const o of found[test] || []) {
      const v = o.summary[datum];
      if (v === undefined || v === null) continue;
      const key = o.definition ? 'd:' + o.definition : 'o:' + paramText(o.parameters);
      if (!groups.has(key)) groups.set(key, { def: o.definition ? defs.get(o.definition) : null, params: o.parameters, points: [] });
      groups.get(key).points.push([Date.parse(o.start), v, o.id]);
    }
    // tests asked for on demand are told apart by the parameters in which they differ
    const adhoc = [...groups.values()].filter(gr => !gr.def);
    const differ = new Set();
    for (const gr of adhoc) {
      for (const [k, v] of Object.entries(gr.params)) if (adhoc.some(o => o.params[k] !== v)) differ.add(k);
    }
    for (const gr of groups.values()) {
      if (gr.points.length === 0) continue; // a legend names only series with data
      gr.points.sort((a, b) => a[0] - b[0]);
      const shown = Object.fromEntries(Object.entries(gr.params).filter(([k]) => differ.has(k)));
      const name = (mixed ? what + ': ' : '') + (gr.def ? gr.def.name + ' (' + paramText(gr.def.parameters) + ')'
        : 'on demand' + (differ.size ? ' (' + paramText(shown) + ')' : ''));
      gr.points.forEach(p => { rows.push([new Date(p[0]).toISOString(), name, p[1], p[2]]); all.push(p[1]); });
      let data = gr.points.map(p => [p[0], opts.log && p[1] <= 0 ? null : p[1]]);
      if (gr.def) data = withGaps(data, gr.def.periodSeconds, gr.def.slipSeconds);
      series.push(gr.def ? { name, type: 'line', showSymbol: true, symbolSize: 4, connectNulls: false, data }
        : { name, type: 'scatter', symbolSize: 6, data });
    }
  }
  const bounds = robustBounds(all, opts.log);
  let outliers = 0;
  if (bounds) {
    const out = [];
    for (const s of series) {
      for (const p of s.data) {
        if (p[1] === null) continue;
        if (p[1] > bounds.max) out.push([p[0], bounds.max, p[1], s.name]);
        else if (p[1] < bounds.min) out.push([p[0], bounds.min, p[1], s.name]);
      }
    }
    outliers = out.length;
    if (out.length) {
      series.push({ name: 'outliers (off the scale)', type: 'scatter', symbol: 'triangle', symbolSize: 10,
        itemStyle: { color: '#d62728' }, data: out,
        tooltip: { formatter: p => p.data[3] + ': ' + fmt(p.data[2]) + ' ' + unit + ' at ' + humanTime(new Date(p.data[0]).toISOString()) } });
    }
  }
  const rangeName = RANGES.find(r => r[0] === opts.range)[1];
  const chart = plot(container, id, title, {
    tooltip: { trigger: 'item', formatter: p => p.seriesName + '<br>' + humanTime(new Date(p.data[0]).toISOString()) + ': '
      + fmt(p.data.length > 2 ? p.data[2] : p.data[1]) + ' ' + unit },
    xAxis: { type: 'time', min: opts.from ? Date.parse(opts.from) : null, max: opts.from ? Date.now() : null },
    yAxis: valueAxis(unit, Object.assign({ type: opts.log ? 'log' : 'value', scale: !opts.log, nameGap: 58,
      axisLabel: { formatter: v => String(Number(Number(v).toPrecision(4))) } },
      bounds ? { min: bounds.min, max: bounds.max } : {})),
    grid: { left: 90, right: 30, top: 60, bottom: 70 },
    legend: { top: 0, type: 'scroll' },
    dataZoom: [{ type: 'inside', xAxisIndex: 0, filterMode: 'none' }, { type: 'slider', xAxisIndex: 0, height: 16, bottom: 8, filterMode: 'none' }],
    series,
  }, { columns: ['time', 'series', 'value', 'observation'], rows,
    empty: 'No ' + title.toLowerCase().replace(/ \(.*\)$/, '') + ' results on this path in the ' + rangeName.replace(/^last /, 'last ')
      .replace('everything stored', 'archive') + '.' },
  [outliers ? outliers + ' value' + (outliers > 1 ? 's' : '') + ' off the scale, marked ▲ at its edge.' : null,
    opts.log && all.some(v => v <= 0) ? 'Zero values are not drawn on the log scale.' : null].filter(x => x).join(' ') || null);
  if (chart) chart.group = 'path';
}

views.path = async main => {
  const p = params();
  const dst = p.get('dst');
  if (!dst) throw new Error('Which path? Open one from the Mesh or Paths view (no destination was given).');
  const src = p.get('src') || undefined;
  const chosen = RANGES.some(r => r[0] === p.get('range'));
  const range = chosen ? p.get('range') : '24h';
  const log = p.get('log') === '1';
  const span = RANGES.find(r => r[0] === range)[2];
  const from = span ? new Date(Date.now() - span).toISOString() : undefined;
  // Unless a range was picked, the time axis fits the results of the last 24 hours: a path
  // measured for two minutes filled a vertical line at the right edge of a day (tutorial).
  const axisFrom = chosen ? from : undefined;
  const known = await kinds();
  const charts = pathCharts(known);
  // every kind's tests on the path: the charts draw some, the table below lists them all
  const tests = known.map(k => k.test);
  const answers = await Promise.all(tests.map(t => api('/api/observations?' + query({ test: t, dst, src, from, limit: 1000 }))));
  const found = {};
  const defs = new Map();
  tests.forEach((t, i) => {
    found[t] = answers[i].results;
    (answers[i].definitions || []).forEach(d => defs.set(d.name, d));
  });
  const go = changes => { location.hash = '#path?' + query(Object.assign({ src, dst, range, log: log ? '1' : '' }, changes)); };
  const picker = el('select', { id: 'range', onchange: e => go({ range: e.target.value }) },
    RANGES.map(([k, label]) => el('option', Object.assign({ value: k }, k === range ? { selected: 'selected' } : {}), label)));
  const logBox = el('input', Object.assign({ type: 'checkbox', id: 'log-scale', onchange: e => go({ log: e.target.checked ? '1' : '' }) },
    log ? { checked: 'checked' } : {}));
  const reset = el('button', { type: 'button', id: 'zoom-reset', onclick: () => Object.values(nmws.charts)
    .forEach(c => c.dispatchAction({ type: 'dataZoom', start: 0, end: 100 })) }, 'Reset zoom');
  main.append(el('h2', {}, 'Path ' + (src ? src + ' → ' : '') + dst),
    el('div', { class: 'path-controls' }, el('label', {}, 'Time range ', picker), ' ', el('label', {}, logBox, ' log scale'), ' ', reset,
      el('span', { class: 'note' }, ' Drag or scroll on a chart to zoom; the charts zoom together.')));
  const plots = el('div', { class: 'plots' });
  main.append(plots);
  for (const spec of charts) pathChart(plots, spec, found, defs, { range, log, from: axisFrom });
  echarts.connect('path');
  const all = [].concat(...tests.map(t => found[t])).sort((a, b) => (a.start < b.start ? 1 : -1)).slice(0, 50);
  const table = el('table', { id: 'tests' }, el('tr', {}, ['start', 'test', 'definition', 'parameters', 'figures'].map(h => el('th', {}, h))));
  for (const o of all) {
    const f = o.summary;
    const brief = briefFigures(known, o.test).filter(k => f[k] !== undefined).map(k => k + ' ' + fmt(f[k])).join(', ');
    table.append(el('tr', {}, el('td', {}, el('a', { href: '#test?id=' + o.id, 'data-test': o.test }, humanTime(o.start))),
      el('td', {}, o.test), el('td', {}, o.definition || 'on demand'), el('td', {}, paramText(o.parameters)), el('td', {}, brief)));
  }
  if (all.length === 0) table.append(el('tr', {}, el('td', { colspan: 5 }, 'No tests on this path in the '
    + RANGES.find(r => r[0] === range)[1] + '.')));
  main.append(el('h3', {}, 'Recent tests'), table);
};

views.test = async main => {
  const id = params().get('id');
  if (!/^[0-9]+$/.test(id || '')) throw new Error('Which test? "' + (id || '') + '" is not a stored test\'s number.');
  let o;
  try {
    o = await api('/api/observations/' + encodeURIComponent(id));
  } catch (e) {
    if (e.status === 404) throw new Error('No stored test has number ' + id + ': it may have been removed by retention.');
    throw e;
  }
  main.append(el('h2', {}, o.test + ' to ' + o.dst + ' at ' + humanTime(o.start)), el('p', { class: 'note', id: 'frames-note' },
    o.test === 'TCP_STREAM' ? o.samplesTotal + ' TCP_INFO samples stored.'
      : o.framesTotal > o.frames.seq.length
        ? 'Plots show frames ' + o.framesOffset + '..' + (o.framesOffset + o.frames.seq.length) + ' of ' + o.framesTotal
        + ' (one answer is bounded by nmws.limits.max-answer-frames).' : o.framesTotal + ' frames stored.'));
  const plots = el('div', { class: 'plots' });
  main.append(plots);
  if (o.test === 'LATENCY_SCAN') {
    scanPlots(plots, o);
  } else if (o.test === 'TCP_STREAM') {
    tcpPlots(plots, o);
  } else {
    framePlots(plots, o);
    if (o.test === 'UDP_STREAM') await spacingPlot(plots, o);
  }
  const summary = el('table', { id: 'summary' }, el('tr', {}, el('th', {}, 'figure'), el('th', {}, 'value')));
  for (const [k, v] of Object.entries(o.summary)) summary.append(el('tr', {}, el('td', {}, k), el('td', { class: 'num' }, fmt(v, 6))));
  main.append(el('h3', {}, 'Summary'), summary);
};

/** UDPmon's set for a test of frames: delay histogram, arrival time-sequence, inter-loss, IPDV. */
function framePlots(plots, o) {
  const f = o.frames;
  const oneWay = o.test === 'UDP_STREAM';
  const what = oneWay ? 'one-way delay' : 'RTT';
  const lost = v => v === -1;
  const received = [];
  for (let i = 0; i < f.seq.length; i++) if (!lost(f.valueNs[i])) received.push(f.valueNs[i] / 1e6);
  histogramPlot(plots, 'latency-histogram', 'Latency histogram (' + what + ')', what + ' ms', histogram(received, 60));

  // Arrival (send + delay) against the frame's number; a lost frame marked where it was sent.
  const arrivals = [];
  const losses = [];
  const rows = [];
  for (let i = 0; i < f.seq.length; i++) {
    const sent = f.sendOffsetNs[i] / 1e6;
    if (lost(f.valueNs[i])) {
      losses.push([f.seq[i], sent]);
      rows.push([f.seq[i], sent, '', 1]);
    } else {
      const at = (f.sendOffsetNs[i] + f.valueNs[i]) / 1e6;
      arrivals.push([f.seq[i], at]);
      rows.push([f.seq[i], sent, at, 0]);
    }
  }
  plot(plots, 'time-sequence', 'Arrival time-sequence (' + (oneWay ? 'at the receiver' : 'back at the sender') + ')', {
    xAxis: valueAxis('frame number'), yAxis: valueAxis('ms after the start', { nameGap: 50 }), // room for '6,000'
    series: [{ name: 'arrived', type: 'scatter', symbolSize: 3, large: true, data: arrivals },
      { name: 'lost', type: 'scatter', symbol: 'diamond', symbolSize: 9, itemStyle: { color: '#d62728' }, data: losses }],
  }, { columns: ['seq', 'sentMs', 'arrivedMs', 'lost'], rows });

  // Gaps in frames between consecutive losses, with the exponential fitted to them (rate 1/mean,
  // the maximum-likelihood fit; the stream's own fit when it stored one).
  const lostSeq = losses.map(l => l[0]).sort((a, b) => a - b);
  const gaps = [];
  for (let i = 1; i < lostSeq.length; i++) gaps.push(lostSeq[i] - lostSeq[i - 1]);
  const bins = histogram(gaps, 40);
  const mean = gaps.reduce((a, b) => a + b, 0) / (gaps.length || 1);
  const rate = o.summary.lossExponentialRate > 0 ? o.summary.lossExponentialRate : 1 / mean;
  const fit = bins.map(b => [(b[0] + b[1]) / 2, gaps.length * (Math.exp(-rate * b[0]) - Math.exp(-rate * b[1]))]);
  histogramPlot(plots, 'inter-loss', 'Inter-loss distribution', 'frames between losses', bins,
    bins.length ? [{ name: 'exponential fit', type: 'line', smooth: true, showSymbol: false, data: fit }] : [],
    losses.length + (losses.length === 1 ? ' frame lost' : ' frames lost') + (gaps.length ? '; fitted rate ' + fmt(rate, 5) + ' a frame' : ''));

  // IPDV: the change in delay between frames that follow each other and both arrived (RFC 3393).
  const bySeq = new Map();
  for (let i = 0; i < f.seq.length; i++) if (!lost(f.valueNs[i])) bySeq.set(f.seq[i], f.valueNs[i]);
  const ipdv = [];
  for (const [s, v] of bySeq) if (bySeq.has(s - 1)) ipdv.push((v - bySeq.get(s - 1)) / 1e6);
  histogramPlot(plots, 'ipdv-histogram', 'IPDV histogram', 'delay change ms', histogram(ipdv, 60));
}

/** Latency against frame size: each size's minimum and mean, and the line fitted to the minima. */
function scanPlots(plots, o) {
  const s = o.summary;
  const sizes = Object.keys(s).map(k => /^size(\d+)MinRttMs$/.exec(k)).filter(m => m).map(m => Number(m[1]))
    .sort((a, b) => a - b);
  const fitted = size => (s.interceptUs + s.slopeUsPerByte * size) / 1000;
  const rows = sizes.map(z => [z, s['size' + z + 'MinRttMs'], s['size' + z + 'MeanRttMs'], fitted(z)]);
  plot(plots, 'latency-vs-size', 'Latency against frame size', {
    tooltip: { trigger: 'axis' },
    xAxis: valueAxis('frame size bytes'), yAxis: valueAxis('RTT ms'),
    series: [{ name: 'minimum', type: 'scatter', symbolSize: 8, data: rows.map(r => [r[0], r[1]]) },
      { name: 'mean', type: 'scatter', symbolSize: 6, data: rows.map(r => [r[0], r[2]]) },
      { name: 'fit', type: 'line', showSymbol: false, data: rows.map(r => [r[0], r[3]]) }],
  }, { columns: ['sizeBytes', 'minRttMs', 'meanRttMs', 'fittedMs'], rows },
  'fit: ' + fmt(s.slopeUsPerByte, 5) + ' µs/byte + ' + fmt(s.interceptUs, 3) + ' µs, r² ' + fmt(s.fitR2Ratio, 5));
}

/** TCP_INFO samples over time, one line per stream: cwnd, smoothed RTT, retransmits so far. */
function tcpPlots(plots, o) {
  const c = o.samples;
  if (!c.offsetNs) {
    plot(plots, 'tcp-cwnd', 'TCP_INFO', {}, { columns: [], rows: [] });
    return;
  }
  const rows = c.offsetNs.map((t, i) => [t / 1e9, c.stream[i], c.cwndSegments[i], c.srttUs[i] / 1000, c.totalRetrans[i]]);
  const streams = [...new Set(c.stream)].sort((a, b) => a - b);
  const lines = col => streams.map(st => ({ name: 'stream ' + st, type: 'line', showSymbol: false,
    data: rows.filter(r => r[1] === st).map(r => [r[0], r[col]]) }));
  const table = { columns: ['seconds', 'stream', 'cwndSegments', 'srttMs', 'totalRetrans'], rows };
  const opt = (axis, col) => ({ tooltip: { trigger: 'axis' }, xAxis: valueAxis('s'), yAxis: valueAxis(axis), series: lines(col) });
  plot(plots, 'tcp-cwnd', 'TCP_INFO: congestion window', opt('segments', 2), table);
  plot(plots, 'tcp-srtt', 'TCP_INFO: smoothed RTT', opt('ms', 3), table);
  plot(plots, 'tcp-retransmits', 'TCP_INFO: retransmits', opt('segments retransmitted', 4), table);
}

/** Received throughput against the sender's frame spacing, over the path's stored streams of this frame size. */
async function spacingPlot(plots, o) {
  const same = (await observations('UDP_STREAM', o.dst, o.src, 200))
    .filter(s => s.parameters.packetSize === o.parameters.packetSize && s.summary.senderSpacingUs !== undefined);
  const rows = same.map(s => [s.summary.senderSpacingUs, s.summary.receiverUserMbps, s.summary.senderUserMbps, s.id])
    .sort((a, b) => a[0] - b[0]);
  plot(plots, 'throughput-vs-spacing', 'Throughput against frame spacing (' + o.parameters.packetSize + '-byte frames)', {
    tooltip: { trigger: 'axis' }, xAxis: valueAxis('spacing µs'), yAxis: valueAxis('Mbit/s'),
    series: [{ name: 'received', type: 'line', data: rows.map(r => [r[0], r[1]]) },
      { name: 'sent', type: 'line', data: rows.map(r => [r[0], r[2]]) }],
  }, { columns: ['spacingUs', 'receivedMbps', 'sentMbps', 'observation'], rows },
  rows.length + ' stored streams of this path and frame size');
}

views.running = async main => {
  const table = el('table', { id: 'running' });
  const status = el('p', { class: 'note', id: 'running-status' });
  main.append(el('h2', {}, 'Running tests'), table, status);
  let timer = null;
  const refresh = async () => {
    const tests = await api('/api/tests');
    table.replaceChildren(el('tr', {}, ['id', 'characteristic', 'destination', 'started', 'progress', ''].map(h => el('th', {}, h))));
    for (const t of tests) {
      table.append(el('tr', { 'data-id': t.id },
        el('td', {}, t.id), el('td', {}, t.characteristic), el('td', {}, t.dst), el('td', {}, humanTime(t.started)),
        el('td', {}, el('progress', { max: Math.max(1, t.total), value: t.done }), ' ' + t.done + ' / ' + t.total),
        el('td', {}, el('button', { type: 'button', class: 'cancel', onclick: async () => {
          try {
            await api('/api/tests/' + encodeURIComponent(t.id), { method: 'DELETE' });
            status.textContent = 'cancelled ' + t.id;
          } catch (e) {
            status.textContent = 'could not cancel ' + t.id + ': ' + e.message;
          }
          refresh();
        } }, 'Cancel'))));
    }
    if (tests.length === 0) table.append(el('tr', {}, el('td', { colspan: 6 }, 'no tests running')));
  };
  await refresh();
  timer = setInterval(() => {
    if (!document.body.contains(table)) { clearInterval(timer); return; }
    refresh().catch(e => showMessage(e.message));
  }, 1000);
};

views.schedules = async main => {
  const schedules = await api('/api/schedules');
  const table = el('table', { id: 'schedules' }, el('tr', {}, ['name', 'characteristic', 'destination', 'period', 'class',
    'enabled', 'parameters'].map(h => el('th', {}, h))));
  const runs = el('div', { id: 'runs' });
  for (const s of schedules) {
    table.append(el('tr', { 'data-name': s.name },
      el('td', {}, el('a', { href: '#schedules', onclick: async ev => {
        ev.preventDefault();
        const r = await api('/api/schedules/' + encodeURIComponent(s.name) + '/runs?limit=20');
        runs.replaceChildren(el('h3', {}, 'Runs of ' + s.name), el('table', {},
          el('tr', {}, ['planned', 'status', 'started', 'ended', 'reason', 'result'].map(h => el('th', {}, h))),
          r.map(x => el('tr', {}, el('td', {}, humanTime(x.planned)), el('td', {}, x.status), el('td', {}, humanTime(x.started)),
            el('td', {}, humanTime(x.ended)), el('td', {}, x.reason || ''),
            el('td', {}, x.observationId ? el('a', { href: '#test?id=' + x.observationId }, x.observationId) : '')))));
      } }, s.name)),
      el('td', {}, s.characteristic), el('td', {}, s.dst), el('td', {}, s.period), el('td', {}, s.testClass),
      el('td', {}, String(s.enabled)), el('td', {}, Object.entries(s.parameters || {}).map(([k, v]) => k + '=' + v).join(' '))));
  }
  if (schedules.length === 0) table.append(el('tr', {}, el('td', { colspan: 7 }, 'no schedules')));
  main.append(el('h2', {}, 'Schedules'), table, runs);
};

// The archives results are sent to (the outbox's delivery): each one's backlog, what was
// delivered, retried, refused for good (failed) and given up at its ttl (expired), refreshed
// every 2 s; the same figures are the nmws_archive_* metrics.
views.archives = async main => {
  const table = el('table', { id: 'archives' });
  const status = el('p', { class: 'note', id: 'archives-status' });
  main.append(el('h2', {}, 'Archives'), table, status);
  let timer = null;
  const refresh = async () => {
    const a = await api('/api/archivers');
    table.replaceChildren(el('tr', {}, ['archive', 'archiver', 'destination', 'state', 'backlog', 'oldest waiting (s)',
      'delivered', 'retried', 'failed', 'expired', 'last delivered', 'last error'].map(h => el('th', {}, h))));
    for (const x of a.archives) {
      table.append(el('tr', { 'data-name': x.name, 'data-state': x.state },
        el('td', {}, x.name), el('td', {}, x.archiver), el('td', {}, x.destination), el('td', {}, x.state),
        el('td', { class: 'num' }, x.backlog), el('td', { class: 'num' }, x.oldestWaitingSeconds === null ? '' : x.oldestWaitingSeconds),
        el('td', { class: 'num' }, x.delivered), el('td', { class: 'num' }, x.retried), el('td', { class: 'num' }, x.failed),
        el('td', { class: 'num' }, x.expired), el('td', {}, x.lastDelivered || ''),
        el('td', {}, x.lastError ? (x.lastErrorAt || '') + ' ' + x.lastError : '')));
    }
    if (a.archives.length === 0) table.append(el('tr', {}, el('td', { colspan: 12 }, 'no archives: no schedule names one')));
    status.textContent = 'point ' + a.point + '; at most ' + a.maxBacklog + ' results wait for one archive';
  };
  await refresh();
  timer = setInterval(() => {
    if (!document.body.contains(table)) { clearInterval(timer); return; }
    refresh().catch(e => showMessage(e.message));
  }, 2000);
};

let generation = 0;

async function render() {
  const main = document.getElementById('view');
  const name = (location.hash.slice(1).split('?')[0]) || 'overview';
  const mine = ++generation;
  Object.values(nmws.charts).forEach(c => c.dispose());
  nmws.plots = {};
  nmws.charts = {};
  showMessage('');
  // Each view draws into its own section: one still loading when the reader moves on draws
  // into a section no longer shown.
  const section = el('section', { 'data-view': name });
  main.replaceChildren(section);
  main.dataset.state = 'loading';
  main.dataset.view = name;
  try {
    await (views[name] || views.overview)(section);
    if (mine === generation) main.dataset.state = 'ready';
  } catch (e) {
    if (mine !== generation) return;
    main.dataset.state = 'failed';
    showMessage(e.message);
    console.error('dashboard: ' + e.message);
  }
}

window.addEventListener('hashchange', render);
render();
