// herdbench's phase map of a cliff search, drawn with uPlot (inlined before
// this file) in its scatter mode (mode 2): one chart per strategy, each
// probed cell a point coloured by its phase (recovered, collapsed,
// uncertain), the boundary found (the seeds' median edge) a line, and its
// 95% confidence interval a shaded band. With one varied field the y axis
// is the share of the seeds run at a value that collapsed; with two, the
// second field, and the boundary a curve over it.
//
// The page holds its data in script#herdbench-phasemap:
//   {charts: [{id, x_label, y_label, two, x_range, y_range,
//     panels: [{title, cells: [[x, y, phase, runs, collapsed]],
//       lines: [[y, median, low, high, found]]}]}]}
// phase is 0 recovered, 1 collapsed, 2 uncertain. Each chart goes into the
// element [data-phasemap=id]; window.herdbenchPhaseMap.drawn counts the
// panels drawn.
(function () {
  "use strict";
  const phases = [
    { label: "recovered (every seed run here)", color: "#2a9d4b" },
    { label: "collapsed (every seed run here)", color: "#d7263d" },
    { label: "uncertain (some of each)", color: "#f0a202" },
  ];

  function fmt(v) {
    return v == null ? "–" : +(+v).toPrecision(4) + "";
  }

  // The band of the 95% intervals: a rectangle with one field, a polygon
  // through every line's ends with two.
  function bandPlugin(chart, panel) {
    return {
      hooks: {
        drawClear: [u => {
          const ctx = u.ctx;
          const lines = panel.lines.filter(l => l[4]);
          if (lines.length === 0) return;
          ctx.save();
          ctx.fillStyle = "rgba(60, 60, 160, 0.13)";
          ctx.beginPath();
          if (!chart.two) {
            const l = lines[0];
            const x0 = u.valToPos(l[2], "x", true), x1 = u.valToPos(l[3], "x", true);
            ctx.rect(x0, u.bbox.top, Math.max(1, x1 - x0), u.bbox.height);
          } else {
            lines.forEach((l, i) => {
              const x = u.valToPos(l[2], "x", true), y = u.valToPos(l[0], "y", true);
              if (i === 0) ctx.moveTo(x, y); else ctx.lineTo(x, y);
            });
            for (let i = lines.length - 1; i >= 0; i--) {
              const l = lines[i];
              ctx.lineTo(u.valToPos(l[3], "x", true), u.valToPos(l[0], "y", true));
            }
            ctx.closePath();
          }
          ctx.fill();
          ctx.restore();
        }],
      },
    };
  }

  function panelData(chart, panel) {
    const data = [null];
    for (let p = 0; p < phases.length; p++) {
      const cells = panel.cells.filter(c => c[2] === p);
      data.push([cells.map(c => c[0]), cells.map(c => c[1])]);
    }
    const lines = panel.lines.filter(l => l[4]);
    if (chart.two) {
      data.push([lines.map(l => l[1]), lines.map(l => l[0])]);
    } else {
      const m = lines.length ? lines[0][1] : null;
      data.push(m == null ? [[], []] : [[m, m], [chart.y_range[0], chart.y_range[1]]]);
    }
    return data;
  }

  function draw(el, chart, panel, width, first) {
    const facets = [{ scale: "x", auto: false }, { scale: "y", auto: false }];
    const series = [{}];
    for (const ph of phases) {
      series.push({
        label: ph.label, stroke: ph.color, fill: ph.color, facets,
        paths: uPlot.paths.points(), points: { show: true, size: 8, width: 1, stroke: ph.color, fill: ph.color },
      });
    }
    series.push({ label: "boundary (the seeds' median edge; band: its 95% interval)", stroke: "#1f2a6b", width: 2, facets,
      paths: uPlot.paths.linear(), points: { show: chart.two, size: 5 } });
    const opts = {
      mode: 2, width, height: chart.two ? 320 : 220, title: panel.title,
      scales: { x: { time: false, range: chart.x_range.slice() }, y: { range: chart.y_range.slice() } },
      axes: [{ label: chart.x_label }, { label: chart.y_label, values: (u, vals) => vals.map(fmt) }],
      series, legend: { show: first, live: false }, cursor: { show: false },
      plugins: [bandPlugin(chart, panel)],
    };
    return new uPlot(opts, panelData(chart, panel), el);
  }

  function mount() {
    const node = document.getElementById("herdbench-phasemap");
    if (!node) return;
    const data = JSON.parse(node.textContent);
    const state = { drawn: 0, plots: [] };
    window.herdbenchPhaseMap = state;
    for (const chart of data.charts) {
      const el = document.querySelector('[data-phasemap="' + chart.id + '"]');
      if (!el) continue;
      const width = Math.max(320, Math.floor(el.clientWidth || 900));
      chart.panels.forEach((panel, i) => {
        const div = document.createElement("div");
        el.appendChild(div);
        state.plots.push(draw(div, chart, panel, width, i === 0));
        state.drawn++;
      });
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mount);
  else mount();
})();
