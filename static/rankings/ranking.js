// Ranking page: poll the status endpoint until the run is finished, then reload;
// what-if sliders call the JSON endpoint that runs the same cost model over the snapshot.
(function () {
  "use strict";
  var root = document.getElementById("ranking");
  if (!root) return;

  function poll() {
    fetch(root.dataset.statusUrl, { credentials: "same-origin" })
      .then(function (r) { return r.json(); })
      .then(function (s) {
        var bar = document.getElementById("progress-bar");
        var text = document.getElementById("progress-text");
        if (bar) bar.style.width = s.progress + "%";
        if (text) text.textContent = s.progress + "%";
        if (s.finished) { window.location.reload(); } else { setTimeout(poll, 800); }
      })
      .catch(function () { setTimeout(poll, 2000); });
  }
  if (root.dataset.finished !== "1") { poll(); return; }

  var box = document.getElementById("whatif");
  var table = document.getElementById("results-table");
  if (!box || !table) return;
  var timer = null;

  // The same shapes as domain/formatting.py: grouped thousands, fixed places, trimmed shares.
  function fmt(x, d) {
    if (x === null || x === undefined || !isFinite(x)) return "—";
    return Number(x).toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d });
  }
  function pct(x) {
    if (x === null || x === undefined || !isFinite(x)) return "—";
    return Number(x * 100).toLocaleString("en-US", { maximumFractionDigits: 1 }) + "%";
  }

  function apply(data) {
    var tbody = table.tBodies[0];
    var rows = {};
    var notes = {};
    Array.prototype.forEach.call(tbody.rows, function (tr) {
      if (tr.dataset.offer) rows[tr.dataset.offer] = tr;
      if (tr.dataset.warningsFor) notes[tr.dataset.warningsFor] = tr;
    });
    data.results.forEach(function (r) {
      var tr = rows[r.id];
      if (!tr) return;
      tr.querySelector(".rank").textContent = r.rank;
      var cost = tr.querySelector(".cost");
      cost.querySelector("strong").textContent = fmt(r.cost_per_eth, 2) + " " + cost.dataset.unit;
      tr.querySelector(".step").textContent = fmt(r.step_time_s, 2);
      tr.querySelector(".exposed").textContent = fmt(r.exposed_comm_s, 2);
      tr.querySelector(".util").textContent = pct(r.utilisation);
      tbody.appendChild(tr);  // re-order by the new rank, the offer's warnings under it
      if (notes[r.id]) tbody.appendChild(notes[r.id]);
    });
    var note = document.getElementById("whatif-note");
    if (note && data.results.length) {
      note.textContent = "#1: " + data.results[0].label + " · " + fmt(data.results[0].cost_per_eth, 2) + " " + (table.querySelector(".cost") || {dataset: {}}).dataset.unit;
    }
  }

  function recompute() {
    var params = new URLSearchParams();
    box.querySelectorAll("input[type=range]").forEach(function (input) {
      params.set(input.name, input.value);
      input.nextElementSibling.textContent = input.value;
    });
    fetch(root.dataset.whatifUrl + "?" + params.toString(), { credentials: "same-origin" })
      .then(function (r) { return r.json(); })
      .then(apply);
  }
  box.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(recompute, 120);
  });
})();
