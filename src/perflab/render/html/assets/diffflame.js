// perflab differential flame graph: one canvas per comparison, written by hand, no dependencies.
// Width: the mean of both sides' time (or memory) per call; color: the difference B - A of the frame and
// everything it calls (red = slower or more, blue = faster or less, paler when its 95% interval
// includes zero). Numbers come formatted in the diff's unit (perflab.render.html.report).
// All text from the profiles is drawn with fillText or set with textContent, never parsed as HTML.
"use strict";
(function () {
  const ROW = 18, MIN_WIDTH = 0.5;
  const tooltip = document.getElementById("diff-tooltip");

  class DiffView {
    constructor(container, data) {
      this.data = data; this.zoom = 0; this.drawn = [];
      this.canvas = container.querySelector("canvas");
      const n = data.depth.length;
      this.end = new Int32Array(n); this.x0 = new Float64Array(n); this.parent = new Int32Array(n);
      const used = new Float64Array(n), stack = [];
      this.maxDepth = 0;
      for (let i = 0; i < n; i++) {
        const d = data.depth[i];
        while (stack.length > d) this.end[stack.pop()] = i;
        if (stack.length === 0) { this.parent[i] = -1; this.x0[i] = 0; }
        else { const p = stack[stack.length - 1]; this.parent[i] = p; this.x0[i] = this.x0[p] + used[p]; used[p] += data.width[i]; }
        stack.push(i);
        this.maxDepth = Math.max(this.maxDepth, d);
      }
      while (stack.length) this.end[stack.pop()] = n;
      this.maxAbs = Math.max(1e-30, ...data.diff.map(Math.abs));
      this.canvas.addEventListener("click", (e) => { const i = this.hit(e); if (i >= 0) this.zoomTo(i); });
      this.canvas.addEventListener("mousemove", (e) => this.hover(e));
      this.canvas.addEventListener("mouseleave", () => { tooltip.hidden = true; });
      container.querySelector(".diff-reset").addEventListener("click", () => this.zoomTo(0));
      this.crumbs = container.querySelector(".diff-crumbs");
    }
    color(i) {
      const d = this.data.diff[i], k = Math.min(1, Math.abs(d) / this.maxAbs);
      const sure = this.data.low[i] > 0 || this.data.high[i] < 0;
      const light = 92 - (sure ? 40 : 15) * Math.sqrt(k);
      return d >= 0 ? `hsl(0, 80%, ${light}%)` : `hsl(215, 80%, ${light}%)`;
    }
    render() {
      const data = this.data, canvas = this.canvas;
      const width = canvas.parentElement.clientWidth || 800, rows = this.maxDepth + 1, height = rows * ROW;
      const dpr = window.devicePixelRatio || 1;
      canvas.width = Math.round(width * dpr); canvas.height = Math.round(height * dpr); canvas.style.height = height + "px";
      const ctx = canvas.getContext("2d");
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0); ctx.clearRect(0, 0, width, height);
      ctx.font = "12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace"; ctx.textBaseline = "middle";
      const charWidth = ctx.measureText("M").width || 7;
      const start = this.x0[this.zoom], scale = width / (data.width[this.zoom] || 1e-30);
      const drawn = [];
      for (let i = 0; i < data.depth.length;) {
        const x = (this.x0[i] - start) * scale, w = data.width[i] * scale;
        if (w < MIN_WIDTH || x >= width || x + w <= 0) { i = this.end[i]; continue; }
        const left = Math.max(0, x), right = Math.min(width, x + w), y = (rows - 1 - data.depth[i]) * ROW;
        ctx.fillStyle = this.color(i);
        ctx.fillRect(left, y, Math.max(right - left - 0.5, 0.5), ROW - 1);
        const room = Math.floor((right - left - 6) / charWidth), name = data.name[i];
        if (room >= 3) { ctx.fillStyle = "#111"; ctx.fillText(name.length <= room ? name : name.slice(0, room - 1) + "\u2026", left + 3, y + ROW / 2); }
        drawn.push(left, y, right - left, i);
        i++;
      }
      this.drawn = drawn;
    }
    hit(e) {
      const box = this.canvas.getBoundingClientRect(), mx = e.clientX - box.left, my = e.clientY - box.top, d = this.drawn;
      for (let k = 0; k < d.length; k += 4) if (my >= d[k + 1] && my < d[k + 1] + ROW && mx >= d[k] && mx < d[k] + d[k + 2]) return d[k + 3];
      return -1;
    }
    zoomTo(i) {
      this.zoom = i;
      const path = [];
      for (let p = i; p >= 0; p = this.parent[p]) path.push(this.data.name[p]);
      this.crumbs.textContent = i === 0 ? "" : "zoomed: " + path.reverse().join(" \u25b8 ");
      this.render();
    }
    hover(e) {
      const i = this.hit(e), data = this.data;
      if (i < 0) { tooltip.hidden = true; return; }
      const line = (cls, text) => { const div = document.createElement("div"); div.className = cls; div.textContent = text; return div; };
      const interval = data.intervalText[i] ? ` ${data.intervalText[i]} (95% CI)` : "";
      tooltip.replaceChildren(
        line("name", data.name[i]), line("where", data.where[i]),
        line("", `${data.sides[0]}: ${data.aText[i]}, ${data.sides[1]}: ${data.bText[i]} (${data.measure})`),
        line("", `difference ${data.diffText[i]}${interval}; self ${data.selfText[i]}`),
        line("hint", "click: zoom here"));
      tooltip.hidden = false;
      const pad = 14, w = tooltip.offsetWidth, h = tooltip.offsetHeight;
      tooltip.style.left = Math.min(e.clientX + pad, window.innerWidth - w - 4) + "px";
      tooltip.style.top = (e.clientY + pad + h > window.innerHeight ? e.clientY - h - pad : e.clientY + pad) + "px";
    }
    center(i) {
      const d = this.drawn, box = this.canvas.getBoundingClientRect();
      for (let k = 0; k < d.length; k += 4) if (d[k + 3] === i) return { x: box.left + d[k] + d[k + 2] / 2, y: box.top + d[k + 1] + ROW / 2 };
      return null;
    }
  }

  const views = [];
  for (const container of document.querySelectorAll(".diffflame")) {
    const view = new DiffView(container, JSON.parse(container.querySelector("script").textContent));
    views.push(view);
    view.render();
  }
  // Re-draw when a collapsed section is opened (its canvas had no width) or the window resizes.
  const redraw = () => views.forEach((v) => v.render());
  window.addEventListener("resize", redraw);
  document.querySelectorAll("details").forEach((d) => d.addEventListener("toggle", redraw));
  window.perflabDiff = {
    views,
    locate(k, name) {
      const v = views[k];
      for (let j = 0; j < v.drawn.length; j += 4) { const i = v.drawn[j + 3]; if (v.data.name[i] === name) return v.center(i); }
      return null;
    },
    state(k) { const v = views[k]; return { zoomed: v.data.name[v.zoom], drawn: v.drawn.length / 4 }; },
  };
})();
