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
  const r = await fetch(path, Object.assign({ headers: { Accept: 'application/json' } }, options));
  if (!r.ok) {
    const text = await r.text();
    throw new Error(path + ': HTTP ' + r.status + (text ? ' ' + text : ''));
  }
  return r.status === 200 ? r.json() : null;
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
    div.replaceWith(el('p', { class: 'empty' }, 'no data'));
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

views.overview = async main => {
  const o = await api('/api/overview');
  const t = { rttMs: [50, 150], lossPercent: [0.1, 1], throughputMbps: [100, 10] };
  const inputs = {};
  const form = el('div', { class: 'thresholds' }, 'Thresholds (warn, bad): ');
  const limits = [['rttMs', 'RTT ms'], ['lossPercent', 'loss %'], ['throughputMbps', 'throughput below Mbit/s']];
  for (const [k, label] of limits) {
    inputs[k] = [0, 1].map(i => el('input', { type: 'number', step: 'any', value: t[k][i], id: 'threshold-' + k + '-' + i,
      onchange: () => colour() }));
    form.append(el('label', {}, label + ' ', inputs[k][0], ' ', inputs[k][1]));
  }
  const cells = new Map(o.cells.map(c => [c.src + '\n' + c.dst, c]));
  const table = el('table', { class: 'grid', id: 'mesh-grid', 'data-source': o.source },
    el('tr', {}, el('th', {}, 'source \\ destination'), o.columns.map(c => el('th', {}, c))));
  const tds = [];
  for (const r of o.rows) {
    const tr = el('tr', {}, el('th', {}, r));
    for (const c of o.columns) {
      const cell = cells.get(r + '\n' + c);
      const td = el('td', { 'data-src': r, 'data-dst': c });
      if (cell) {
        // the cell's groups, their labels and units as the kinds declare them (/api/kinds)
        for (const { name: k, label, unit } of o.groups) {
          if (cell[k]) td.append(el('div', { 'data-figure': k, 'data-value': cell[k].value },
            label + ' ' + fmt(cell[k].value) + ' ' + unit));
        }
        td.addEventListener('click', () => { location.hash = '#path?' + query({ src: r, dst: c }); });
        tds.push([td, cell]);
      } else if (r !== c) {
        td.className = 'none';
        td.textContent = 'no results';
      }
      tr.append(td);
    }
    table.append(tr);
  }
  function colour() {
    const lim = k => inputs[k].map(i => parseFloat(i.value));
    for (const [td, cell] of tds) {
      let level = 0;
      for (const k of ['rttMs', 'lossPercent']) {
        if (cell[k]) { const [w, b] = lim(k); level = Math.max(level, cell[k].value >= b ? 2 : cell[k].value >= w ? 1 : 0); }
      }
      if (cell.throughputMbps) {
        const [w, b] = lim('throughputMbps');
        const v = cell.throughputMbps.value;
        level = Math.max(level, v < b ? 2 : v < w ? 1 : 0);
      }
      td.className = ['ok', 'warn', 'bad'][level];
    }
  }
  colour();
  main.append(el('h2', {}, 'Mesh'),
    el('p', { class: 'note' }, o.source === 'mesh' ? 'Points of the configured mesh; latest stored result per pair.'
      : 'No mesh file configured: sources and destinations of the stored results.'), form, table);
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
      el('td', { class: 'num' }, p.count), el('td', {}, p.first), el('td', {}, p.last)));
  }
  main.append(el('h2', {}, 'Stored paths'), table);
};

/** Summaries of one test kind on the path, oldest first. */
function observations(test, dst, src, limit) {
  return api('/api/observations?' + query({ test, dst, src, limit: limit || 500 })).then(r => r.results);
}

views.path = async main => {
  const p = params();
  const dst = p.get('dst');
  const src = p.get('src') || undefined;
  const [rr, stamp, stream, tcp, scan] = await Promise.all(['ROUND_TRIP', 'STAMP', 'UDP_STREAM', 'TCP_STREAM', 'LATENCY_SCAN']
    .map(t => observations(t, dst, src)));
  main.append(el('h2', {}, 'Path ' + (src ? src + ' → ' : '') + dst));
  const plots = el('div', { class: 'plots' });
  main.append(plots);
  const time = o => o.start;
  const timeSeries = (id, title, axis, sets) => {
    // sets: [name, observations, datum]; one row per observation
    const rows = [];
    const series = sets.map(([name, obs, datum]) => {
      const data = obs.filter(o => o.summary[datum] !== undefined).map(o => [time(o), o.summary[datum], o.id]);
      data.forEach(d => rows.push([d[0], name, d[1], d[2]]));
      return { name, type: 'line', showSymbol: true, symbolSize: 5, data: data.map(d => [d[0], d[1]]) };
    });
    plot(plots, id, title, { tooltip: { trigger: 'axis' }, xAxis: { type: 'time' }, yAxis: valueAxis(axis), series },
      { columns: ['time', 'series', 'value', 'observation'], rows });
  };
  timeSeries('path-rtt', 'Round-trip time', 'ms', [['median RTT', rr, 'medianRtt'], ['min RTT', rr, 'minRtt'],
    ['max RTT', rr, 'maxRtt'], ['STAMP median RTT', stamp, 'medianRtt']]);
  timeSeries('path-owd', 'One-way delay', 'ms', [['median', stream, 'medianDelayMs'], ['min', stream, 'minDelayMs'],
    ['p95', stream, 'p95DelayMs'], ['STAMP forward median', stamp, 'medianForwardMs']]);
  timeSeries('path-loss', 'Loss', '%', [['round trip', rr, 'lossPercent'], ['one-way stream', stream, 'lossPercent'],
    ['STAMP', stamp, 'lossPercent']]);
  timeSeries('path-throughput', 'Throughput', 'Mbit/s', [['TCP', tcp, 'throughputMbps'],
    ['UDP received', stream, 'receiverUserMbps']]);
  const all = [].concat(rr, stamp, stream, tcp, scan).sort((a, b) => (a.start < b.start ? 1 : -1)).slice(0, 50);
  const table = el('table', { id: 'tests' }, el('tr', {}, ['start', 'test', 'parameters', 'figures'].map(h => el('th', {}, h))));
  for (const o of all) {
    const f = o.summary;
    const brief = ['medianRtt', 'lossPercent', 'medianDelayMs', 'receiverUserMbps', 'throughputMbps', 'slopeUsPerByte']
      .filter(k => f[k] !== undefined).map(k => k + ' ' + fmt(f[k])).join(', ');
    table.append(el('tr', {}, el('td', {}, el('a', { href: '#test?id=' + o.id, 'data-test': o.test }, o.start)),
      el('td', {}, o.test), el('td', {}, Object.entries(o.parameters).map(([k, v]) => k + '=' + v).join(' ')),
      el('td', {}, brief)));
  }
  main.append(el('h3', {}, 'Recent tests'), table);
};

views.test = async main => {
  const id = params().get('id');
  const o = await api('/api/observations/' + encodeURIComponent(id));
  main.append(el('h2', {}, o.test + ' to ' + o.dst + ' at ' + o.start),
    el('p', { class: 'note', id: 'frames-note' }, o.framesTotal > o.frames.seq.length
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
    xAxis: valueAxis('frame number'), yAxis: valueAxis('ms after the start'),
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
    losses.length + ' frames lost' + (gaps.length ? '; fitted rate ' + fmt(rate, 5) + ' a frame' : ''));

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
        el('td', {}, t.id), el('td', {}, t.characteristic), el('td', {}, t.dst), el('td', {}, t.started),
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
          r.map(x => el('tr', {}, el('td', {}, x.planned), el('td', {}, x.status), el('td', {}, x.started || ''),
            el('td', {}, x.ended || ''), el('td', {}, x.reason || ''),
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
