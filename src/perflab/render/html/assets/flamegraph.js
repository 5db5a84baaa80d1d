// perflab flame graph: canvas rendering of a call tree given in depth-first order.
// Written by hand for perflab; no dependencies. All text from the profile is set with textContent
// or drawn with fillText, never parsed as HTML.
"use strict";
(function () {
  const DATA = JSON.parse(document.getElementById("profile-data").textContent);
  const FRAMES = DATA.frames;
  const STATS = DATA.stats;           // six numbers per frame: self, low, high, total, low, high
  const ROW = 18;                     // pixels per stack level
  const MIN_WIDTH = 0.5;              // narrower frames (and their subtrees) are not drawn
  const KIND_PYTHON = 0, KIND_NATIVE = 1;

  // ---- trees: columns of a depth-first order, with layout precomputed -------------------------
  function makeTree(frame, depth, total, self) {
    const n = frame.length;
    const parent = new Int32Array(n), end = new Int32Array(n), x0 = new Float64Array(n);
    const used = new Float64Array(n);  // width already given to children
    const stack = [];
    let maxDepth = 0;
    for (let i = 0; i < n; i++) {
      const d = depth[i];
      while (stack.length > d) end[stack.pop()] = i;
      if (stack.length === 0) { parent[i] = -1; x0[i] = 0; }
      else { const p = stack[stack.length - 1]; parent[i] = p; x0[i] = x0[p] + used[p]; used[p] += total[i]; }
      stack.push(i);
      if (d > maxDepth) maxDepth = d;
    }
    while (stack.length) end[stack.pop()] = n;
    return { n, frame, depth, total, self, parent, end, x0, maxDepth };
  }

  // Merge weighted frame paths into a tree (for the sandwich view). Children keyed by frame.
  function treeFromPaths(rootFrame) {
    const nodes = [{ frame: rootFrame, total: 0, self: 0, children: new Map() }];
    return {
      root: nodes[0],
      child(node, frame) {
        let c = node.children.get(frame);
        if (!c) { c = { frame, total: 0, self: 0, children: new Map() }; node.children.set(frame, c); }
        return c;
      },
      finish() {  // to columns, heaviest child first
        const frame = [], depth = [], total = [], self = [];
        const pending = [[nodes[0], 0]];
        while (pending.length) {
          const [node, d] = pending.pop();
          frame.push(node.frame); depth.push(d); total.push(node.total); self.push(node.self);
          const kids = Array.from(node.children.values()).sort((a, b) => a.total - b.total);
          for (const k of kids) pending.push([k, d + 1]);
        }
        return makeTree(frame, depth, total, self);
      },
    };
  }

  const MAIN = makeTree(DATA.nodes.frame, DATA.nodes.depth, DATA.nodes.total, DATA.nodes.self);
  const ROOT_TOTAL = MAIN.total[0] || 1;

  // ---- colors -----------------------------------------------------------------------------------
  function hash(text) { let h = 0; for (let i = 0; i < text.length; i++) h = (h * 31 + text.charCodeAt(i)) | 0; return h >>> 0; }
  const colorCache = new Map();
  function colorOf(f) {
    let c = colorCache.get(f);
    if (c === undefined) {
      const h = hash(FRAMES.name[f]), kind = FRAMES.kind[f];
      if (kind === KIND_PYTHON) c = `hsl(${18 + h % 30}, 85%, ${58 + (h >> 5) % 12}%)`;
      else if (kind === KIND_NATIVE) c = `hsl(${195 + h % 30}, 60%, ${62 + (h >> 5) % 12}%)`;
      else c = `hsl(0, 0%, ${72 + h % 10}%)`;
      colorCache.set(f, c);
    }
    return c;
  }

  // ---- one canvas view of one tree --------------------------------------------------------------
  class FlameView {
    constructor(canvas, tree, options) {
      this.canvas = canvas; this.tree = tree; this.zoom = 0;
      this.icicle = !!options.icicle; this.onClick = options.onClick; this.highlight = null;
      this.drawn = [];  // x, y, w, node: what is on screen, for hit testing
      canvas.addEventListener("mousemove", (e) => this.hover(e));
      canvas.addEventListener("mouseleave", () => hideTooltip());
      canvas.addEventListener("click", (e) => { const i = this.hit(e); if (i >= 0) this.onClick(this, i); });
    }
    render() {
      const t = this.tree, canvas = this.canvas;
      const width = canvas.parentElement.clientWidth || 800;
      const rows = t.maxDepth + 1, height = rows * ROW;
      const dpr = window.devicePixelRatio || 1;
      canvas.width = Math.round(width * dpr); canvas.height = Math.round(height * dpr);
      canvas.style.height = height + "px";
      const ctx = canvas.getContext("2d");
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.clearRect(0, 0, width, height);
      ctx.font = "12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace";
      ctx.textBaseline = "middle";
      const charWidth = ctx.measureText("M").width || 7;
      const start = t.x0[this.zoom], scale = width / (t.total[this.zoom] || 1);
      const drawn = []; const hl = this.highlight;
      for (let i = 0; i < t.n;) {
        const x = (t.x0[i] - start) * scale, w = t.total[i] * scale;
        if (w < MIN_WIDTH || x >= width || x + w <= 0) { i = t.end[i]; continue; }
        const left = Math.max(0, x), right = Math.min(width, x + w), y = this.yOf(t.depth[i], rows);
        const f = t.frame[i];
        ctx.fillStyle = hl ? (hl[f] ? "hsl(300, 75%, 62%)" : "hsl(0, 0%, 86%)") : colorOf(f);
        ctx.fillRect(left, y, Math.max(right - left - 0.5, 0.5), ROW - 1);
        const room = Math.floor((right - left - 6) / charWidth);
        if (room >= 3) {
          const name = FRAMES.name[f];
          ctx.fillStyle = "#111";
          ctx.fillText(name.length <= room ? name : name.slice(0, room - 1) + "\u2026", left + 3, y + ROW / 2);
        }
        drawn.push(left, y, right - left, i);
        i++;
      }
      this.drawn = drawn;
    }
    yOf(depth, rows) { return this.icicle ? depth * ROW : (rows - 1 - depth) * ROW; }
    hit(event) {
      const box = this.canvas.getBoundingClientRect();
      const mx = event.clientX - box.left, my = event.clientY - box.top, d = this.drawn;
      for (let k = 0; k < d.length; k += 4) {
        if (my >= d[k + 1] && my < d[k + 1] + ROW && mx >= d[k] && mx < d[k] + d[k + 2]) return d[k + 3];
      }
      return -1;
    }
    hover(event) {
      const i = this.hit(event);
      if (i < 0) { hideTooltip(); return; }
      showTooltip(this, i, event.clientX, event.clientY);
    }
    center(i) {  // page coordinates of a drawn node (used by tests and the keyboard)
      const d = this.drawn, box = this.canvas.getBoundingClientRect();
      for (let k = 0; k < d.length; k += 4) if (d[k + 3] === i) return { x: box.left + d[k] + d[k + 2] / 2, y: box.top + d[k + 1] + ROW / 2 };
      return null;
    }
  }

  // ---- tooltip ----------------------------------------------------------------------------------
  const tooltip = document.getElementById("tooltip");
  const pct = (x) => (100 * x).toFixed(1) + "%";
  const range = (lo, hi) => `[${(100 * lo).toFixed(1)}\u2013${(100 * hi).toFixed(1)}]`;
  const WHERE = FRAMES.file.map((file, f) => {
    const line = FRAMES.line[f];
    return file ? (line !== null && line !== undefined ? file + ":" + line : file) : "";
  });
  const where = (f) => WHERE[f];
  function line(cls, text) { const div = document.createElement("div"); if (cls) div.className = cls; div.textContent = text; return div; }
  function showTooltip(view, i, cx, cy) {
    const t = view.tree, f = t.frame[i], s = 6 * f;
    const parts = [line("name", FRAMES.name[f])];
    if (where(f)) parts.push(line("where", where(f)));
    const ofView = t.total[i] / (t.total[view.zoom] || 1);
    parts.push(line("", `this box: ${t.total[i].toLocaleString()} ${DATA.unit || "samples"}, ${pct(t.total[i] / (t.total[0] || 1))} of ${view === app.main ? "the operation" : "this view"}` +
      (view.zoom !== 0 ? `, ${pct(ofView)} of the zoomed frame` : "") + ` (self ${t.self[i].toLocaleString()})`));
    const what = DATA.byLine && FRAMES.kind[f] === KIND_PYTHON ? "this line" : "function";  // --lines: a frame is a line
    parts.push(line("", `${what}, all calls: self ${pct(STATS[s])} ${range(STATS[s + 1], STATS[s + 2])}, ` +
      `total ${pct(STATS[s + 3])} ${range(STATS[s + 4], STATS[s + 5])} (95% CI over ${DATA.runs} runs)`));
    if (FRAMES.cache && FRAMES.cache[f]) parts.push(line("cache", FRAMES.cache[f]));  // its C function's simulated misses
    parts.push(line("hint", view === app.main ? "click: zoom here and select for the sandwich view" : "click: sandwich of this function"));
    tooltip.replaceChildren(...parts);
    tooltip.hidden = false;
    const pad = 14, w = tooltip.offsetWidth, h = tooltip.offsetHeight;
    tooltip.style.left = Math.min(cx + pad, window.innerWidth - w - 4) + "px";
    tooltip.style.top = (cy + pad + h > window.innerHeight ? cy - h - pad : cy + pad) + "px";
  }
  function hideTooltip() { tooltip.hidden = true; }

  // ---- search -----------------------------------------------------------------------------------
  function searchFrames(text) {
    if (!text) return null;
    let re;
    try { re = new RegExp(text, "i"); search.classList.remove("invalid"); }
    catch (e) { re = new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "i"); search.classList.add("invalid"); }
    const n = FRAMES.name.length, hit = new Uint8Array(n);
    for (let f = 1; f < n; f++) if (re.test(FRAMES.name[f]) || re.test(where(f))) hit[f] = 1;
    return hit;
  }
  function matchedShare(tree, hit) {  // samples under a match, each sample counted once
    let sum = 0, coveredUntil = -1;
    for (let i = 1; i < tree.n; i++) {
      if (i >= coveredUntil && hit[tree.frame[i]]) { sum += tree.total[i]; coveredUntil = tree.end[i]; }
    }
    return sum / (tree.total[0] || 1);
  }

  // ---- sandwich: callers (inverted) and callees of one function, over all its calls ---------------
  function outermostCalls(tree, f) {  // nodes of f without f above them (recursion counted once)
    const calls = [];
    for (let i = 0; i < tree.n;) {
      if (tree.frame[i] === f) { calls.push(i); i = tree.end[i]; } else i++;
    }
    return calls;
  }
  function callersTree(tree, f) {
    const b = treeFromPaths(f);
    for (const i of outermostCalls(tree, f)) {
      const w = tree.total[i];
      b.root.total += w;
      let node = b.root;
      for (let p = tree.parent[i]; p >= 0; p = tree.parent[p]) { node = b.child(node, tree.frame[p]); node.total += w; }
      node.self += w;
    }
    return b.finish();
  }
  function calleesTree(tree, f) {
    const b = treeFromPaths(f);
    const mapped = new Map();
    for (const i of outermostCalls(tree, f)) {
      b.root.total += tree.total[i]; b.root.self += tree.self[i]; mapped.set(i, b.root);
      for (let j = i + 1; j < tree.end[i]; j++) {
        const node = b.child(mapped.get(tree.parent[j]), tree.frame[j]);
        node.total += tree.total[j]; node.self += tree.self[j]; mapped.set(j, node);
      }
    }
    return b.finish();
  }

  // ---- the page ---------------------------------------------------------------------------------
  const search = document.getElementById("search"), matched = document.getElementById("matched");
  const icicleButton = document.getElementById("icicle"), sandwichButton = document.getElementById("sandwich");
  const crumbs = document.getElementById("crumbs");
  const app = { main: null, callers: null, callees: null, selected: -1, sandwichFrame: -1, source: -1 };

  function zoomTo(view, i) {
    view.zoom = i;
    app.selected = view.tree.frame[i];
    sandwichButton.disabled = i === 0;
    sandwichButton.textContent = i === 0 ? "Sandwich" : "Sandwich: " + FRAMES.name[app.selected];
    const path = [];
    for (let p = i; p >= 0; p = view.tree.parent[p]) path.push(FRAMES.name[view.tree.frame[p]]);
    crumbs.textContent = i === 0 ? "" : "zoomed: " + path.reverse().join(" \u25b8 ");
    showSource(app.selected);
    view.render();
  }
  function showSandwich(f) {
    app.sandwichFrame = f;
    document.getElementById("sandwich-name").textContent = FRAMES.name[f] + (where(f) ? " (" + where(f) + ")" : "");
    const onClick = (view, i) => showSandwich(view.tree.frame[i]);
    app.callers = new FlameView(freshCanvas("callers"), callersTree(MAIN, f), { icicle: false, onClick });
    app.callees = new FlameView(freshCanvas("callees"), calleesTree(MAIN, f), { icicle: true, onClick });
    document.getElementById("flame-pane").hidden = true;
    document.getElementById("sandwich-pane").hidden = false;
    app.callers.render(); app.callees.render();
  }
  function freshCanvas(id) {  // drop the old canvas and its listeners
    const old = document.getElementById(id), canvas = document.createElement("canvas");
    canvas.id = id; old.replaceWith(canvas); return canvas;
  }
  // ---- source view (--lines): the clicked function's lines, each with its shares and a heat mark ----
  const sourceTitle = document.getElementById("source-title"), sourceLines = document.getElementById("source-lines");
  const share = (st, k) => `${pct(st[k])} ${range(st[k + 1], st[k + 2])}`;
  function cell(cls, text) { const td = document.createElement("td"); td.className = cls; td.textContent = text; return td; }
  function showSource(f) {
    const v = sourceLines && f > 0 ? FRAMES.source[f] : -1;
    if (!sourceLines || v === undefined || v < 0) { if (sourceLines) sourceLines.hidden = true; app.source = -1; return; }
    const view = DATA.sources[v];
    app.source = v;
    sourceTitle.textContent = `Source of ${view.name} (${view.file}): self ${share(view.stats, 0)}, ` +
      `total ${share(view.stats, 3)} of the operation (95% CI over ${DATA.runs} runs); unmarked lines had no sample`;
    const rows = view.rows.map((row) => {
      const tr = document.createElement("tr");
      if (row.stats) { tr.className = "sampled"; tr.style.setProperty("--heat", String(row.heat)); }
      tr.append(cell("number", String(row.line)), cell("share", row.stats ? share(row.stats, 0) : ""),
                cell("share", row.stats ? share(row.stats, 3) : ""),
                row.text === null ? cell("missing", "(source not kept: beyond the lines stored)") : cell("code", row.text));
      return tr;
    });
    sourceLines.tBodies[0].replaceChildren(...rows);
    sourceLines.hidden = false;
  }

  function closeSandwich() {
    app.sandwichFrame = -1;
    document.getElementById("sandwich-pane").hidden = true;
    document.getElementById("flame-pane").hidden = false;
    app.main.render();
  }

  app.main = new FlameView(document.getElementById("flame"), MAIN, { icicle: false, onClick: zoomTo });
  document.getElementById("reset").addEventListener("click", () => zoomTo(app.main, 0));
  icicleButton.addEventListener("click", () => {
    app.main.icicle = !app.main.icicle;
    icicleButton.setAttribute("aria-pressed", String(app.main.icicle));
    app.main.render();
  });
  sandwichButton.addEventListener("click", () => { if (app.selected > 0) showSandwich(app.selected); });
  document.getElementById("sandwich-close").addEventListener("click", closeSandwich);
  let searchTimer = 0;
  search.addEventListener("input", () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => {
      const hit = searchFrames(search.value.trim());
      app.main.highlight = hit;
      matched.textContent = hit ? "matched: " + pct(matchedShare(MAIN, hit)) + " of " + (DATA.unit || "samples") : "";
      app.main.render();
    }, 120);
  });
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape") { if (app.sandwichFrame >= 0) closeSandwich(); else zoomTo(app.main, 0); }
  });
  let resizePending = false;
  window.addEventListener("resize", () => {
    if (resizePending) return;
    resizePending = true;
    requestAnimationFrame(() => {
      resizePending = false;
      if (app.sandwichFrame >= 0) { app.callers.render(); app.callees.render(); } else app.main.render();
    });
  });

  // For tests and scripts: where a function is drawn, and the view's state.
  window.perflabFlame = {
    app,
    locate(name, view) {
      const v = view ? app[view] : app.main;
      for (let k = 0; k < v.drawn.length; k += 4) {
        const i = v.drawn[k + 3];
        if (FRAMES.name[v.tree.frame[i]] === name) return v.center(i);
      }
      return null;
    },
    state() {
      return { zoomed: FRAMES.name[app.main.tree.frame[app.main.zoom]], icicle: app.main.icicle,
               drawn: app.main.drawn.length / 4, sandwich: app.sandwichFrame >= 0 ? FRAMES.name[app.sandwichFrame] : null,
               callers: app.callers ? app.callers.drawn.length / 4 : 0, callees: app.callees ? app.callees.drawn.length / 4 : 0,
               source: app.source >= 0 ? DATA.sources[app.source].name : null };
    },
  };
  const started = performance.now();
  app.main.render();
  window.perflabFlame.renderMs = performance.now() - started;
  document.body.dataset.ready = "true";
})();
