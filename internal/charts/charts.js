// herdbench's interactive charts, drawn with uPlot (internal/uplot, inlined
// before this file). A page inlines both and calls HerdbenchCharts.mount.
//
// API (window.HerdbenchCharts):
//
//   decode(rle) -> number[]
//       Expands a run-length encoded array of counts: a value v >= 0 is one
//       bucket; a negative -k repeats the previous value k more times.
//   timeline(el, spec, series, group) -> chart
//       Draws one chart (spec, below) into the element el: one uPlot per
//       panel, stacked vertically, their cursors shared, zoomed together.
//       series are decoded counts that a spec series' numeric `data`
//       indexes (a `data` array is run-length encoded counts of its own);
//       group ({charts: [], busy: false}, shared) makes charts zoom together.
//   mount(data) -> {charts: {id: chart}, groups, series (decoded)}
//       Draws every chart of a page's data ({duration_s, series, charts}):
//       each spec into the element [data-uplot=spec.id], its series'
//       `data` indexes into data.series (run-length encoded counts). Every
//       chart of one mount with the same spec.group (default "time") zooms
//       together. A page with script#herdbench-data is mounted on load,
//       into window.herdbench.
//
// A chart is {spec, plots: [uPlot], bin_s(), setRange(min, max), reset(),
// update(series)}: setRange zooms (seconds), reset zooms out, update draws
// new counts (a live page's growing timelines), or, with explicit x, the
// spec's x, x_range and series' values as they are now (changed in place).
//
// A spec is
//   {id, title, ylabel, height (px per panel), log (y on a log scale),
//    res_s: the width of the counts' buckets in seconds,
//    max_bin_s: the widest bin drawn (when zoomed out), bins: how many bins
//      to aim for across the visible range (the bin width adapts as one
//      zooms, down to res_s),
//    x: explicit x values (then series carry `values`, drawn as they are),
//    sync_legend: toggling a series in one panel toggles it in all,
//    columns: panels side by side (default 1), group: charts that zoom
//      together (default "time"), xlabel, x_log, x_ticks: [{value, label}],
//      x_range: [min, max], points: draw each point,
//    zoom: [min, max]: the range the chart shows first, in seconds (the
//      chart alone; a double-click shows the whole range),
//    panels: [{title, stacked, faults: [{name, at_s, for_s}], fault_names,
//      series: [{label, color, dash: [on, off], width, fill, data | values,
//        sd: error bars (± per value, with values),
//        ref: {label, value}: a dotted level drawn across the panel}]}]}
// Counts become rates per second (count / bin width); stacked panels add
// each series onto the one before it.
(function () {
  "use strict";

  function decode(rle) {
    const out = [];
    let prev = 0;
    for (const v of rle) {
      if (v < 0) {
        for (let k = 0; k < -v; k++) out.push(prev);
      } else {
        out.push(v);
        prev = v;
      }
    }
    return out;
  }

  // Bin widths, as multiples of the data's bucket: 1, 2, 5, 10, 20, 50, ...
  function binFor(span, spec) {
    const want = span / Math.max(1, spec.bins || 200);
    const maxBin = Math.max(spec.max_bin_s || spec.res_s, spec.res_s);
    if (!(spec.res_s > 0) || !(want > 0)) return 1;
    let f = 1;
    for (let m = 1; m < 1e12; m *= 10) {
      for (const s of [1, 2, 5]) {
        f = s * m;
        if (f * spec.res_s >= want - 1e-12 || f * spec.res_s >= maxBin - 1e-12) {
          return Math.min(f, Math.round(maxBin / spec.res_s));
        }
      }
    }
    return f;
  }

  // rebin sums counts into bins of f buckets and returns rates per second.
  function rebin(counts, f, res) {
    const n = Math.ceil(counts.length / f);
    const out = new Array(n).fill(0);
    for (let i = 0; i < counts.length; i++) out[(i / f) | 0] += counts[i];
    const scale = 1 / (f * res);
    for (let i = 0; i < n; i++) out[i] *= scale;
    return out;
  }

  function fmt(v) {
    if (v == null) return "–";
    const a = Math.abs(v);
    if (a >= 100 || v === Math.trunc(v)) return Math.round(v).toLocaleString("en");
    return v.toPrecision(3);
  }

  // axisFmt writes an axis tick compactly: 1.5M, 20k.
  function axisFmt(v) {
    const a = Math.abs(v);
    if (a >= 1e6) return +(v / 1e6).toPrecision(3) + "M";
    if (a >= 1e4) return +(v / 1e3).toPrecision(3) + "k";
    return fmt(v);
  }

  function secondsText(s) {
    return s >= 1 ? +s.toFixed(3) + " s" : Math.round(s * 1000) + " ms";
  }

  // The fault windows: shaded under the data, a dashed line at each start,
  // the name at the top; and each series' reference level.
  function bandsPlugin(pn) {
    const panel = pn.p;
    const drawn = pn.order.map(j => panel.series[j]); // in uPlot's series order
    return {
      hooks: {
        drawClear: [u => {
          const ctx = u.ctx, b = u.bbox;
          ctx.save();
          for (const f of panel.faults || []) {
            const x0 = Math.max(u.valToPos(f.at_s, "x", true), b.left);
            const x1 = Math.min(u.valToPos(f.at_s + f.for_s, "x", true), b.left + b.width);
            if (x1 <= x0) continue;
            ctx.fillStyle = "rgba(232,58,58,0.11)";
            ctx.fillRect(x0, b.top, x1 - x0, b.height);
            ctx.strokeStyle = "rgba(232,58,58,0.45)";
            ctx.setLineDash([3, 3]);
            ctx.lineWidth = 1;
            ctx.beginPath();
            ctx.moveTo(x0, b.top);
            ctx.lineTo(x0, b.top + b.height);
            ctx.stroke();
          }
          ctx.restore();
        }],
        draw: [u => {
          const ctx = u.ctx, b = u.bbox, px = devicePixelRatio || 1;
          ctx.save();
          ctx.font = (11 * px) + "px Liberation Sans, Arial, sans-serif";
          ctx.textBaseline = "top";
          if (panel.fault_names) {
            ctx.fillStyle = "#7a2020";
            for (const f of panel.faults || []) {
              const x0 = u.valToPos(f.at_s, "x", true);
              if (x0 >= b.left && x0 < b.left + b.width) ctx.fillText(f.name, x0 + 3 * px, b.top + 2 * px);
            }
          }
          let labelRight = b.left + b.width - 4 * px; // reference labels, right to left
          drawn.forEach((s, i) => {
            if (!u.series[i + 1].show) return;
            if (s.sd) {
              ctx.strokeStyle = s.color;
              ctx.setLineDash([]);
              ctx.lineWidth = px;
              ctx.beginPath();
              s.sd.forEach((d, k) => {
                const v = s.values[k];
                if (v == null || !d) return;
                const x = u.valToPos(u.data[0][k], "x", true);
                const y0 = u.valToPos(v - d, "y", true), y1 = u.valToPos(v + d, "y", true);
                ctx.moveTo(x, y0);
                ctx.lineTo(x, y1);
                ctx.moveTo(x - 3 * px, y0);
                ctx.lineTo(x + 3 * px, y0);
                ctx.moveTo(x - 3 * px, y1);
                ctx.lineTo(x + 3 * px, y1);
              });
              ctx.stroke();
            }
            if (!s.ref) return;
            const y = u.valToPos(s.ref.value, "y", true);
            if (y < b.top || y > b.top + b.height) return;
            ctx.strokeStyle = s.color;
            ctx.setLineDash([2 * px, 4 * px]);
            ctx.lineWidth = px;
            ctx.beginPath();
            ctx.moveTo(b.left, y);
            ctx.lineTo(b.left + b.width, y);
            ctx.stroke();
            ctx.fillStyle = s.color;
            ctx.textBaseline = "bottom";
            ctx.textAlign = "right";
            ctx.fillText(s.ref.label, labelRight, y - 2 * px);
            labelRight -= ctx.measureText(s.ref.label).width + 12 * px;
          });
          ctx.restore();
        }],
      },
    };
  }

  // Wheel zooms around the pointer; shift + drag pans.
  function wheelPanPlugin(zoom, reset) {
    return {
      hooks: {
        ready: [u => {
          const over = u.over;
          over.addEventListener("dblclick", reset); // every chart of the group out
          over.addEventListener("wheel", e => {
            if (!e.ctrlKey && !e.altKey && !e.metaKey && !e.shiftKey) return; // plain wheel scrolls the page
            e.preventDefault();
            const x = u.posToVal(e.offsetX, "x");
            const { min, max } = u.scales.x;
            const k = e.deltaY < 0 ? 0.75 : 1 / 0.75;
            zoom(x - (x - min) * k, x + (max - x) * k);
          }, { passive: false });
          over.addEventListener("mousedown", e => {
            if (!e.shiftKey || e.button !== 0) return;
            e.stopImmediatePropagation();
            e.preventDefault();
            const x0 = e.clientX, { min, max } = u.scales.x;
            const perPx = (max - min) / u.over.clientWidth;
            const move = ev => {
              const d = (ev.clientX - x0) * perPx;
              zoom(min - d, max - d);
            };
            const up = () => {
              document.removeEventListener("mousemove", move);
              document.removeEventListener("mouseup", up);
            };
            document.addEventListener("mousemove", move);
            document.addEventListener("mouseup", up);
          }, { capture: true });
        }],
      },
    };
  }

  let nextSync = 0;

  // timeline draws spec into el; series are the decoded counts spec's
  // series index; group is the set of charts that zoom together.
  function timeline(el, spec, series, group) {
    series = series || [];
    group = group || { charts: [], busy: false };
    const countsOf = s => (s.data == null ? null : typeof s.data === "number" ? series[s.data] : decode(s.data));
    const panels = spec.panels.map(p => ({
      p,
      counts: p.series.map(countsOf),
      // Stacked layers draw top first so each lower one covers the rest.
      order: p.series.map((s, j) => j).sort((a, b) => (p.stacked ? b - a : a - b)),
      raw: null, // the unstacked rates at the current bin, which the legend shows
    }));
    const full = (() => {
      if (spec.x) {
        if (spec.x_range) return spec.x_range;
        return [spec.x[0], spec.x[spec.x.length - 1]];
      }
      let n = 0;
      for (const pn of panels) for (const c of pn.counts) if (c) n = Math.max(n, c.length);
      return [0, Math.max(n * spec.res_s, spec.duration_s || 0)];
    })();
    const chart = { spec, plots: [], el };
    let bin = spec.x ? 1 : binFor(full[1] - full[0], spec);

    // dataFor is a panel's data at bins of f buckets, in drawing order.
    function dataFor(f, pn) {
      let xs, ys;
      if (spec.x) {
        xs = spec.x;
        ys = pn.p.series.map(s => s.values);
      } else {
        let n = 0;
        const rs = pn.counts.map(c => {
          const r = c ? rebin(c, f, spec.res_s) : [];
          n = Math.max(n, r.length);
          return r;
        });
        const w = f * spec.res_s;
        xs = [];
        for (let i = 0; i <= n; i++) xs.push(+(i * w).toFixed(6));
        ys = rs.map(r => {
          const a = r.slice();
          while (a.length < n) a.push(null);
          a.push(a.length ? a[a.length - 1] : null); // closes the last bin's step
          return a;
        });
        pn.raw = ys;
        if (pn.p.stacked) {
          // A hidden layer adds nothing, so the ones above it come down.
          const shown = j => !pn.u || pn.u.series[pn.order.indexOf(j) + 1].show;
          const sums = [];
          ys.forEach((a, j) => sums.push(a.map((v, i) => (shown(j) ? v || 0 : 0) + (j > 0 ? sums[j - 1][i] : 0))));
          ys = sums;
        }
      }
      return [xs].concat(pn.order.map(j => ys[j]));
    }

    const status = document.createElement("div");
    status.className = "hb-status";
    function showBin() {
      status.textContent = "bins: " + secondsText(bin * spec.res_s) +
        (bin > 1 ? " (zoom in for finer, down to " + secondsText(spec.res_s) + ")" : " (the finest recorded)");
    }
    chart.bin_s = () => (spec.x ? null : +(bin * spec.res_s).toFixed(6));
    function setBin(f) {
      if (spec.x || f === bin) return;
      bin = f;
      chart.plots.forEach((u, i) => u.setData(dataFor(f, panels[i]))); // the caller sets the x scale next
      showBin();
    }

    // zoom sets every chart of the group to [min, max].
    function zoom(min, max) {
      if (!(max > min)) return;
      group.range = [min, max];
      for (const c of group.charts) c.setRange(min, max);
    }
    chart.zoom = zoom;
    let xRange = full.slice(); // what a chart of given x shows: uPlot would fit it to its data
    chart.setRange = (min, max) => {
      xRange = [min, max];
      const was = group.busy;
      group.busy = true;
      try {
        if (!spec.x) setBin(binFor(max - min, spec));
        for (const u of chart.plots) u.setScale("x", { min, max });
      } finally {
        group.busy = was;
      }
    };
    chart.reset = () => chart.setRange(full[0], full[1]);
    // update draws new counts (the same indexing as the spec's data, e.g.
    // a live run's timelines as they grow), keeping the range shown unless
    // it was the whole run, which then grows with them.
    chart.update = next => {
      series = next;
      let n = 0;
      for (const pn of panels) {
        pn.counts = pn.p.series.map(countsOf);
        for (const c of pn.counts) if (c) n = Math.max(n, c.length);
      }
      const whole = xRange[0] <= full[0] && xRange[1] >= full[1];
      if (!spec.x) full[1] = Math.max(n * spec.res_s, spec.duration_s || 0);
      else {
        // Explicit x values grow in place (a live page's frames), or the
        // range given with them moves.
        const r = spec.x_range || [spec.x[0], spec.x[spec.x.length - 1]];
        full[0] = r[0];
        full[1] = r[1];
      }
      const [min, max] = whole ? full : xRange;
      const was = group.busy;
      group.busy = true;
      try {
        bin = spec.x ? 1 : binFor(max - min, spec);
        chart.plots.forEach((u, i) => u.setData(dataFor(bin, panels[i])));
        if (!spec.x) showBin();
      } finally {
        group.busy = was;
      }
      chart.setRange(min, max);
    };

    const syncKey = "hb-" + (spec.id || "chart") + "-" + nextSync++;
    const cols = Math.max(1, spec.columns || 1);
    const width = () => Math.max(320 / cols, Math.floor((el.clientWidth || 900) / cols) - (cols > 1 ? 8 : 0));
    const xlabel = spec.xlabel || "seconds since start";
    const wasBusy = group.busy;
    group.busy = true; // uPlot sets its scales as it starts: not a zoom
    panels.forEach((pn, i) => {
      const last = i >= panels.length - cols;
      const useries = [{ label: spec.x ? xlabel : "time", value: (u, v) => (v == null ? "–" : spec.x_ticks ? tickLabel(spec, v) : +v.toFixed(3) + " s") }];
      for (const j of pn.order) {
        const s = pn.p.series[j];
        const us = {
          label: s.label,
          stroke: s.color,
          width: s.width || 1.5,
          dash: s.dash || undefined,
          fill: s.fill || undefined,
          spanGaps: !!spec.x && !!spec.points,
          points: { show: !!spec.points, size: 6 },
          value: (u, v, si, idx) => (idx == null || !pn.raw ? fmt(v) : fmt(pn.raw[j][idx])),
        };
        if (!spec.x) us.paths = uPlot.paths.stepped({ align: 1 });
        useries.push(us);
      }
      const xaxis = { label: last ? xlabel : "", size: last ? 44 : 30 };
      if (spec.x_ticks) {
        xaxis.splits = () => spec.x_ticks.map(t => t.value);
        xaxis.values = (u, vals) => vals.map(v => tickLabel(spec, v));
      }
      const opts = {
        title: pn.p.title || "",
        width: width(),
        height: spec.height || 220,
        series: useries,
        scales: {
          x: { time: false, distr: spec.x_log ? 3 : 1, range: (u, min, max) => (spec.x ? xRange.slice() : [min, max]) },
          y: spec.log ? { distr: 3 } : { range: (u, min, max) => [Math.min(0, min || 0), max > 0 ? max * 1.08 : 1] },
        },
        axes: [
          xaxis,
          { label: pn.p.ylabel || spec.ylabel || "", size: 70, values: (u, vals) => vals.map(v => (spec.log ? secondsOrMs(v) : axisFmt(v))) },
        ],
        cursor: {
          sync: { key: syncKey, setSeries: !!spec.sync_legend },
          drag: { x: !spec.x_log, y: false, setScale: false },
          bind: { dblclick: () => null }, // ours resets the whole group
        },
        legend: { show: true, live: true },
        plugins: [bandsPlugin(pn), wheelPanPlugin(zoom, () => { for (const c of group.charts) c.reset(); })],
        hooks: {
          setSeries: [u => {
            if (!pn.p.stacked || !chart.ready) return;
            queueMicrotask(() => {
              u.setData(dataFor(bin, pn));
              u.setScale("x", { min: xRange[0], max: xRange[1] });
            });
          }],
          setSelect: [u => {
            if (u.select.width < 3) return;
            const min = u.posToVal(u.select.left, "x"), max = u.posToVal(u.select.left + u.select.width, "x");
            u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
            // Not from inside uPlot's commit, which is still drawing.
            queueMicrotask(() => zoom(min, max));
          }],
          setScale: [(u, key) => {
            // A zoom from outside the group (uPlot's double-click reset, a
            // script setting the scale): every chart of the group follows,
            // at the bins the new range needs.
            if (key !== "x" || group.busy || !chart.ready || spec.x_log) return;
            const { min, max } = u.scales.x, r = group.range;
            if (r && Math.abs(r[0] - min) < 1e-9 && Math.abs(r[1] - max) < 1e-9) return; // the group's own zoom
            // Not from inside uPlot's commit, which is still drawing.
            queueMicrotask(() => zoom(min, max));
          }],
        },
      };
      const box = document.createElement("div");
      if (cols > 1) box.style.cssText = "display:inline-block;vertical-align:top;margin-right:8px";
      el.appendChild(box);
      pn.u = new uPlot(opts, dataFor(bin, pn), box);
      chart.plots.push(pn.u);
    });
    group.busy = wasBusy;
    queueMicrotask(() => (chart.ready = true)); // after uPlot's first commit
    if (!spec.x) {
      showBin();
      el.appendChild(status);
    }
    if (spec.zoom && spec.zoom[1] > spec.zoom[0]) chart.setRange(spec.zoom[0], spec.zoom[1]);
    group.charts.push(chart);
    if (typeof ResizeObserver !== "undefined") {
      let w = width();
      new ResizeObserver(() => {
        if (width() === w) return;
        w = width();
        for (const u of chart.plots) u.setSize({ width: w, height: u.height });
      }).observe(el);
    }
    return chart;
  }

  function tickLabel(spec, v) {
    for (const t of spec.x_ticks) if (Math.abs(t.value - v) <= 1e-9 * Math.max(1, Math.abs(v))) return t.label;
    return fmt(v);
  }

  function secondsOrMs(ms) {
    if (ms >= 1000) return +(ms / 1000).toFixed(3) + " s";
    if (ms >= 1) return +ms.toFixed(3) + " ms";
    return +(ms * 1000).toFixed(1) + " µs";
  }

  function mount(data) {
    const series = (data.series || []).map(decode);
    const groups = {};
    const out = { charts: {}, groups, series };
    for (const spec of data.charts || []) {
      const el = document.querySelector('[data-uplot="' + spec.id + '"]');
      if (!el) continue;
      spec.duration_s = spec.duration_s || data.duration_s;
      const g = spec.group || "time";
      groups[g] = groups[g] || { charts: [], busy: false };
      out.charts[spec.id] = timeline(el, spec, series, groups[g]);
    }
    return out;
  }

  window.HerdbenchCharts = { decode, timeline, mount };

  // A report page carries its data in script#herdbench-data: draw it, and
  // leave the charts on window.herdbench (tests and the console use them).
  const page = document.getElementById("herdbench-data");
  if (page) {
    window.herdbench = mount(JSON.parse(page.textContent));
    window.herdbench.drawnMs = performance.now();
  }
})();
