// perflab series page: medians with 95% CI whiskers over runs in commit order (uPlot), change points
// as bands, a tooltip with commit, date and subject, click to pick runs (one: its page; two: their
// comparison). Everything from the store is set with textContent, never parsed as HTML.
"use strict";
(function () {
  const DATA = JSON.parse(document.getElementById("series-data").textContent);
  const P = DATA.points;
  const n = P.median.length;

  function fmtTime(s) {
    if (s == null || !isFinite(s)) return "?";
    const a = Math.abs(s);
    const [scale, unit] = a >= 1 ? [1, "s"] : a >= 1e-3 ? [1e-3, "ms"] : a >= 1e-6 ? [1e-6, "us"] : [1e-9, "ns"];
    return (s / scale).toPrecision(3) + " " + unit;
  }
  function fmtCount(v) {
    if (v == null || !isFinite(v)) return "?";
    const a = Math.abs(v);
    return a >= 1e9 ? (v / 1e9).toPrecision(4) + " G" : a >= 1e6 ? (v / 1e6).toPrecision(4) + " M" :
      a >= 1e3 ? (v / 1e3).toPrecision(4) + " k" : v.toPrecision(4);
  }
  // bytes in binary units, as perflab.units.format_bytes writes them
  function fmtBytes(v) {
    if (v == null || !isFinite(v)) return "?";
    const a = Math.abs(v);
    const [scale, unit] = a >= 2 ** 30 ? [2 ** 30, "GiB"] : a >= 2 ** 20 ? [2 ** 20, "MiB"] : a >= 2 ** 10 ? [2 ** 10, "KiB"] : [1, "B"];
    return (v / scale).toPrecision(3).replace(/\.?0+$/, "") + " " + unit;
  }
  function fmtDate(t) { return new Date(t * 1000).toISOString().slice(0, 16).replace("T", " ") + " UTC"; }
  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text != null) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }

  // y range: where the data (intervals included) is, never from zero
  function yRange(median, low, high) {
    let lo = Infinity, hi = -Infinity;
    for (let i = 0; i < median.length; i++) {
      const a = low[i] != null ? low[i] : median[i], b = high[i] != null ? high[i] : median[i];
      if (a < lo) lo = a;
      if (b > hi) hi = b;
    }
    const pad = (hi - lo) * 0.05 || Math.abs(hi) * 0.05 || 1;
    return [lo - pad, hi + pad];
  }

  function whiskers(low, high) {
    return (u) => {
      const ctx = u.ctx, [i0, i1] = u.series[1].idxs || [0, low.length - 1];
      ctx.save();
      ctx.strokeStyle = "rgba(37, 99, 235, 0.55)";
      ctx.lineWidth = Math.max(1, u.pxRatio);
      ctx.beginPath();
      for (let i = i0; i <= i1; i++) {
        if (low[i] == null || high[i] == null) continue;
        const x = u.valToPos(i, "x", true);
        ctx.moveTo(x, u.valToPos(low[i], "y", true));
        ctx.lineTo(x, u.valToPos(high[i], "y", true));
      }
      ctx.stroke();
      ctx.restore();
    };
  }

  // runs in which the contender's speed does not count (not equivalent, repeat-only): ringed in
  // the colour the report gives "invalid", never that of "slower"
  function struckRings(series) {
    return (u) => {
      if (!series.struck) return;
      const ctx = u.ctx;
      ctx.save();
      ctx.strokeStyle = "#7a3fa0";
      ctx.lineWidth = 2 * u.pxRatio;
      for (let i = 0; i < series.struck.length; i++) {
        if (!series.struck[i]) continue;
        ctx.beginPath();
        ctx.arc(u.valToPos(i, "x", true), u.valToPos(series.median[i], "y", true), 6 * u.pxRatio, 0, 2 * Math.PI);
        ctx.stroke();
      }
      ctx.restore();
    };
  }

  // change points as translucent boxes over the plot (elements in uPlot's overlay, placed after each draw)
  const bands = (changes) => (u) => {
    if (!u.bandBoxes) {
      u.bandBoxes = changes.map((c) => {
        const box = el("div", null, "band " + (c.slower ? "band-slower" : "band-faster"));
        box.title = c.before + " … " + c.after + ": " + c.text;
        u.over.appendChild(box);
        return box;
      });
    }
    changes.forEach((c, k) => {
      const box = u.bandBoxes[k];
      if (c.before_index == null || c.after_index == null) { box.hidden = true; return; }
      const x0 = u.valToPos(c.before_index, "x"), x1 = u.valToPos(c.after_index, "x");
      box.style.left = x0 + "px";
      box.style.width = Math.max(x1 - x0, 2) + "px";
    });
  };

  // changes: the series' change points, drawn as bands (null: none drawn)
  function makeChart(container, series, fmt, changes, onPick) {
    const xs = series.label.map((_, i) => i);
    const [lo, hi] = yRange(series.median, series.low, series.high);
    const tooltip = el("div", null, "tooltip");
    tooltip.hidden = true;
    const opts = {
      width: Math.max(320, container.clientWidth), height: 320,
      scales: { x: { time: false }, y: { range: () => [lo, hi] } },
      axes: [
        { space: 90, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000],
          values: (u, splits) => splits.map((i) => series.label[Math.round(i)] || "") },
        { size: 80, values: (u, splits) => splits.map(fmt) },
      ],
      series: [{ label: "run" }, { label: "median", stroke: "#2563eb", width: 1.5, points: { show: true, size: 6, fill: "#2563eb" },
                 value: (u, v) => fmt(v) }],
      cursor: { drag: { x: false, y: false }, points: { size: 9 } },
      legend: { show: false },
      hooks: {
        draw: [bands(changes || []), whiskers(series.low, series.high), struckRings(series)],
        setCursor: [(u) => {
          const i = u.cursor.idx;
          if (i == null) { tooltip.hidden = true; return; }
          tooltip.replaceChildren(
            el("strong", series.label[i]),
            el("div", fmt(series.median[i]) + " [" + fmt(series.low[i]) + ", " + fmt(series.high[i]) + "]"),
            el("div", series.when ? fmtDate(series.when[i]) : ""),
            el("div", series.subject ? (series.subject[i] || "") : "", "subject"),
            el("div", series.struck && series.struck[i] ? series.struck[i] + " in this run: its speed does not count" : "", "invalid"));
          tooltip.hidden = false;
          const left = u.cursor.left, w = u.over.clientWidth;
          tooltip.style.left = (left > w - 240 ? left - 230 : left + 14) + "px";
          tooltip.style.top = Math.max(0, u.cursor.top - 10) + "px";
        }],
        ready: [(u) => {
          u.over.appendChild(tooltip);
          u.over.addEventListener("mouseleave", () => { tooltip.hidden = true; });
          u.over.addEventListener("click", () => { if (u.cursor.idx != null) onPick(u.cursor.idx); });
        }],
      },
    };
    return new uPlot(opts, [xs, series.median], container);
  }

  // ---- picking runs ------------------------------------------------------------------------------
  const picked = [];
  const panel = document.getElementById("picked");
  function compareHref(a, b) {
    if (DATA.compare_pages) return DATA.compare_pages[a + "-" + b] || null;
    return DATA.compare_href.replace("{a}", a).replace("{b}", b);
  }
  function showPicked() {
    const parts = [];
    for (const i of picked) {
      const row = el("div", null, "pick");
      // a run without a commit is labelled "run N" already: "run 1 at run 1" said it twice
      const name = "run " + P.run[i];
      const link = el("a", P.label[i] === name ? name : name + " at " + P.label[i]);
      link.href = P.href[i];
      row.append(link, el("span", " " + fmtTime(P.median[i]) + " [" + fmtTime(P.low[i]) + ", " + fmtTime(P.high[i]) + "] · " +
                          fmtDate(P.when[i]) + " · " + (P.subject[i] || "")));
      parts.push(row);
    }
    if (picked.length === 2) {
      const [a, b] = [...picked].sort((x, y) => x - y);
      const href = compareHref(P.run[a], P.run[b]);
      if (href) {
        const link = el("a", "Compare run " + P.run[a] + " (" + P.label[a] + ") with run " + P.run[b] + " (" + P.label[b] + ")", "compare-link");
        link.href = href;
        parts.push(link);
      } else {
        parts.push(el("p", "This published site holds the comparisons around change points only; `perflab serve` compares any two runs.", "note"));
      }
    }
    if (picked.length) {
      const clear = el("button", "Clear selection");
      clear.type = "button";
      clear.addEventListener("click", () => { picked.length = 0; showPicked(); });
      parts.push(clear);
    }
    panel.replaceChildren(...parts);
  }
  function pick(i) {
    if (picked.includes(i)) return;
    picked.push(i);
    if (picked.length > 2) picked.shift();
    showPicked();
  }

  const charts = [makeChart(document.getElementById("chart"), P, fmtTime, DATA.changes, pick)];
  for (const box of document.querySelectorAll(".metric-chart")) {
    const m = DATA.metrics[box.dataset.metric];
    const fmt = m.unit === "bytes" ? fmtBytes : fmtCount;
    charts.push(makeChart(box, m, fmt, m.changes, (i) => { window.location.href = m.href[i]; }));
  }
  window.addEventListener("resize", () => {
    for (const c of charts) c.setSize({ width: Math.max(320, c.root.parentNode.clientWidth), height: 320 });
  });
  document.body.dataset.chartDrawnMs = String(Math.round(performance.now()));
  document.body.dataset.ready = "true";
})();
