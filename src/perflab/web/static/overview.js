// perflab overview in a published (static) site: no server to filter, so the rows filter here, from
// the same form and the same URL parameters (q, regressions, machine, python) the server reads.
"use strict";
(function () {
  const form = document.getElementById("filters");
  const rows = document.querySelectorAll("#series-table tbody tr[data-text]");
  const params = new URLSearchParams(window.location.search);
  for (const [name, value] of params) {
    const field = form.elements[name];
    if (!field) continue;
    if (field.type === "checkbox") field.checked = value === "1"; else field.value = value;
  }
  function apply() {
    const words = form.elements.q.value.toLowerCase().split(/\s+/).filter(Boolean);
    const regressions = form.elements.regressions.checked;
    const machine = form.elements.machine.value, python = form.elements.python.value;
    let shown = 0;
    for (const row of rows) {
      const keep = words.every((w) => row.dataset.text.includes(w)) && (!regressions || row.dataset.regressed === "true")
        && (!machine || row.dataset.machine === machine) && (!python || row.dataset.python === python);
      row.hidden = !keep;
      if (keep) shown++;
    }
    document.getElementById("shown").textContent = shown + " of " + rows.length + " shown";
    const state = new URLSearchParams();
    if (words.length) state.set("q", form.elements.q.value);
    if (regressions) state.set("regressions", "1");
    if (machine) state.set("machine", machine);
    if (python) state.set("python", python);
    try { history.replaceState(null, "", "?" + state.toString()); } catch (e) { /* some browsers refuse on file:// */ }
  }
  form.addEventListener("input", apply);
  form.addEventListener("change", apply);
  form.addEventListener("submit", (event) => { event.preventDefault(); apply(); });
  apply();
  document.body.dataset.ready = "true";
})();
