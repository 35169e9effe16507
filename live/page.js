"use strict";
// herdbench's live page: reads /live/events (Server-Sent Events, read with
// fetch so that the token can go in a header), keeps the run's bins and
// draws them with charts.js (internal/charts, the report's) over uPlot.
(function () {
  const $ = (id) => document.getElementById(id);
  const token = new URLSearchParams(location.hash.slice(1)).get("token") || "";
  const auth = token ? { Authorization: "Bearer " + token } : {};
  const maxBins = 6000; // 10 minutes at 100 ms, as the server's history

  // The charts are the report's (charts.js, inlined before this script),
  // in their explicit-x form: each frame's t, and the values as counted.
  let hello = null, meta = null, run = null, data = null, charts = [], group = null, pending = false, lastT = 0;

  function reset() {
    data = { t: [], cohorts: [] };
    charts = [];
    group = { charts: [], busy: false };
    $("charts").textContent = "";
  }

  function ensureCohorts(n) {
    while (data.cohorts.length < n) {
      const pad = () => data.t.map(() => 0);
      data.cohorts.push({ o: hello.outcomes.map(pad), s: pad(), f: pad(), i: pad(), q: pad(), attempts: 0, ok: 0, succ: 0, fail: 0 });
    }
  }

  function onHello(h) {
    hello = h;
    run = h.run;
    meta = h.meta;
    reset();
    $("title").textContent = "herdbench live: " + h.role + (h.title ? " " + h.title : "");
    $("controls").hidden = !h.control;
  }

  function onFrame(f) {
    if (f.run !== run) { run = f.run; reset(); }
    if (f.meta) meta = f.meta;
    ensureCohorts(f.c.length);
    // A late tick covers more than one bin: the charts show it per bin
    // (scaled), the totals as counted.
    const dt = data.t.length ? f.t - data.t[data.t.length - 1] : 0;
    const scale = dt > 0 ? hello.tick_ms / 1000 / dt : 1;
    data.t.push(f.t);
    lastT = f.t;
    data.active = f.active;
    if (f.h) data.herd = f.h;
    data.cohorts.forEach((c, k) => {
      const d = f.c[k] || { o: hello.outcomes.map(() => 0), s: 0, f: 0, i: 0, q: 0 };
      d.o.forEach((v, j) => { c.o[j].push(v * scale); c.attempts += v; });
      c.ok += d.o[0];
      c.s.push(d.s * scale); c.f.push(d.f * scale); c.i.push(d.i); c.q.push(d.q * scale);
      c.succ += d.s; c.fail += d.f;
    });
    if (data.t.length > maxBins) trim(maxBins / 10);
    if (!pending) { pending = true; requestAnimationFrame(render); }
  }

  // trim drops the oldest n bins (a target watched for hours); the
  // totals keep counting them.
  function trim(n) {
    data.t.splice(0, n);
    for (const c of data.cohorts) {
      for (const col of c.o) col.splice(0, n);
      for (const col of [c.s, c.f, c.i, c.q]) col.splice(0, n);
    }
    data.trimmed = true;
  }

  function handle(block) {
    let ev = "message", body = "";
    for (const line of block.split("\n")) {
      if (line.startsWith("event: ")) ev = line.slice(7);
      else if (line.startsWith("data: ")) body += line.slice(6);
    }
    if (!body) return;
    const v = JSON.parse(body);
    if (ev === "hello") onHello(v); else if (hello) onFrame(v);
  }

  function setConn(text, bad) {
    const c = $("conn");
    c.textContent = text;
    c.className = bad ? "conn bad" : "conn";
  }

  async function connect() {
    for (;;) {
      try {
        const res = await fetch("/live/events", { headers: auth, cache: "no-store" });
        if (res.status === 401) { setConn("this page needs its token: open it as " + location.origin + "/#token=TOKEN", true); return; }
        if (!res.ok) throw new Error("HTTP " + res.status + ": " + (await res.text()));
        setConn("live", false);
        const reader = res.body.getReader(), dec = new TextDecoder();
        let buf = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += dec.decode(value, { stream: true });
          let i;
          while ((i = buf.indexOf("\n\n")) >= 0) { handle(buf.slice(0, i)); buf = buf.slice(i + 2); }
        }
        if (meta && meta.done) { setConn("the run has ended", false); return; }
        setConn("disconnected; reconnecting…", true);
      } catch (e) {
        setConn("disconnected (" + e.message + "); reconnecting…", true);
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  }

  // chart draws one chart of series ({label, color, dash}) whose values
  // come from values() at each render.
  function chart(title, series, values) {
    const box = document.createElement("div");
    box.className = "chart";
    const h = document.createElement("h3");
    h.textContent = title;
    box.appendChild(h);
    const el = document.createElement("div");
    box.appendChild(el);
    $("charts").appendChild(box);
    const spec = {
      id: "live-" + charts.length, height: 200, xlabel: "t (s)", x: data.t, x_range: xRange(),
      panels: [{ faults: meta.faults, series: series.map((s, j) => Object.assign({ values: values()[j] }, s)) }],
    };
    charts.push({ chart: HerdbenchCharts.timeline(el, spec, [], group), spec, values });
  }

  function xRange() {
    return [data.trimmed ? data.t[0] : 0, span()];
  }

  function buildCharts() {
    const tick = hello.tick_ms + " ms";
    const colors = hello.colors, cohort = (k) => colors.palette[k % colors.palette.length];
    meta.cohorts.forEach((name, k) => {
      const c = data.cohorts[k];
      chart("Attempts per " + tick + " by outcome: " + name,
        hello.outcomes.map((o) => ({ label: o, color: colors.outcomes[o] || "#000" })), () => c.o);
    });
    chart("Requests ended per " + tick + " (succeeded, gave up: dashed)",
      meta.cohorts.flatMap((name, k) => [{ label: name + " ok", color: cohort(k) }, { label: name + " failed", color: cohort(k), dash: [5, 3] }]),
      () => data.cohorts.flatMap((c) => [c.s, c.f]));
    chart("In flight", meta.cohorts.map((name, k) => ({ label: name, color: cohort(k) })),
      () => data.cohorts.map((c) => c.i));
  }

  function span() {
    let end = meta.duration_s;
    if (!(end > 0)) {
      end = lastT;
      for (const f of meta.faults) end = Math.max(end, f.at_s + f.for_s);
      end = Math.max(10, end * 1.1);
    }
    return end;
  }

  function drawTimeline() {
    const tl = $("timeline");
    tl.textContent = "";
    const end = span(), active = new Set(data.active || []);
    if (meta.faults.length === 0) {
      const e = document.createElement("div");
      e.className = "empty";
      e.textContent = "no faults planned";
      tl.appendChild(e);
    }
    for (const f of meta.faults) {
      const row = document.createElement("div");
      row.className = "row";
      const bar = document.createElement("div");
      bar.className = "bar" + (f.injected ? " injected" : "") + (active.has(f.name) && lastT >= f.at_s && lastT < f.at_s + f.for_s ? " on" : "");
      bar.style.left = (100 * f.at_s / end) + "%";
      bar.style.width = Math.max(0.5, 100 * f.for_s / end) + "%";
      bar.textContent = f.name + " (" + f.kind + ") " + f.at_s + "–" + (f.at_s + f.for_s) + " s";
      bar.title = bar.textContent;
      row.appendChild(bar);
      tl.appendChild(row);
    }
    const now = document.createElement("div");
    now.className = "now";
    now.title = "now: t = " + lastT.toFixed(1) + " s";
    now.style.left = Math.min(100, 100 * lastT / end) + "%";
    tl.appendChild(now);
  }

  // recovery says whether a cohort's attempts succeed again after the
  // last fault: the last second's success ratio back to 90% of the
  // ratio before the first fault.
  function recovery(c) {
    if (meta.faults.length === 0) return ["no faults", ""];
    let first = Infinity, last = 0;
    for (const f of meta.faults) { first = Math.min(first, f.at_s); last = Math.max(last, f.at_s + f.for_s); }
    if (lastT < first) return ["before the faults", ""];
    if (lastT < last || (data.active || []).length > 0) return ["faults on", ""];
    const bins = Math.max(1, Math.round(1000 / hello.tick_ms));
    const ratio = (from, to) => {
      let a = 0, ok = 0;
      for (let i = from; i < to; i++) { for (const col of c.o) a += col[i]; ok += c.o[0][i]; }
      return a > 0 ? ok / a : null;
    };
    const firstBin = data.t.findIndex((t) => t >= first);
    const base = ratio(0, firstBin < 0 ? 0 : firstBin);
    const want = 0.9 * (base === null ? 1 : base);
    const lastBin = data.t.findIndex((t) => t >= last);
    for (let i = Math.max(lastBin, 0); i + bins <= data.t.length; i++) {
      const r = ratio(i, i + bins);
      if (r !== null && r >= want) return ["yes, at t = " + data.t[i].toFixed(1) + " s", "yes"];
    }
    return ["not yet", "no"];
  }

  function drawVerdict() {
    const tb = document.querySelector("#verdict tbody");
    tb.textContent = "";
    meta.cohorts.forEach((name, k) => {
      const c = data.cohorts[k];
      const ended = c.succ + c.fail;
      const [rec, cls] = recovery(c);
      const herd = data.herd && data.herd[k] > 0 ? data.herd[k].toFixed(2) : "–";
      // Without attempt numbers a retry looks like a new request: success
      // is not measured (the recording's summary says the same).
      const unnumbered = meta.unnumbered && meta.unnumbered[k];
      const success = unnumbered ? "not measured (no attempt numbers)" : ended > 0 ? (100 * c.succ / ended).toFixed(1) + "% of " + ended : "–";
      const cells = [name, String(c.attempts), success,
        herd, String(c.i[c.i.length - 1] || 0), rec];
      const tr = document.createElement("tr");
      tr.dataset.attempts = String(c.attempts);
      cells.forEach((v, j) => {
        const td = document.createElement("td");
        td.textContent = v;
        if (j === 5 && cls) td.className = cls;
        tr.appendChild(td);
      });
      tb.appendChild(tr);
    });
  }

  function drawState() {
    let s = "t = " + lastT.toFixed(1) + " s";
    if (meta.duration_s > 0) s += " of " + meta.duration_s + " s";
    s += meta.done ? "; ended" : meta.running ? "; running" : "; plan waiting for its start";
    const active = data.active || [];
    s += active.length ? "; faults on: " + active.join(", ") : "; no fault on";
    $("state").textContent = s;
    document.body.dataset.running = String(meta.running);
    document.body.dataset.frames = String(data.t.length);
    document.body.dataset.done = String(!!meta.done);
  }

  function render() {
    pending = false;
    if (!meta || !data) return;
    if (charts.length !== meta.cohorts.length + 2 && data.cohorts.length === meta.cohorts.length) {
      charts = [];
      group = { charts: [], busy: false };
      $("charts").textContent = "";
      buildCharts();
    }
    for (const c of charts) {
      const vals = c.values(), p = c.spec.panels[0];
      c.spec.x = data.t;
      c.spec.x_range = xRange();
      p.faults = meta.faults;
      p.series.forEach((s, j) => (s.values = vals[j]));
      c.chart.update([]);
    }
    drawTimeline();
    drawVerdict();
    drawState();
  }

  async function call(path, body) {
    const a = $("answer");
    a.className = "answer";
    a.textContent = "…";
    try {
      const res = await fetch(path, { method: "POST", headers: Object.assign({ "Content-Type": "application/json" }, auth), body, cache: "no-store" });
      const v = await res.json();
      if (!res.ok) {
        a.className = "answer bad";
        a.textContent = v.error + (v.problems ? ": " + v.problems.join("; ") : "");
        return;
      }
      a.textContent = path.slice(9) + ": plan " + (v.plan_running ? "running" : "stopped") +
        (v.active_faults.length ? ", faults on: " + v.active_faults.join(", ") : ", no fault on");
      document.body.dataset.running = String(v.plan_running);
    } catch (e) {
      a.className = "answer bad";
      a.textContent = e.message;
    }
  }
  $("start").addEventListener("click", () => call("/control/start", "{}"));
  $("stop").addEventListener("click", () => call("/control/stop", "{}"));
  $("inject").addEventListener("click", () => call("/control/inject", $("fault").value));

  connect();
})();
