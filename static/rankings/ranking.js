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

  function fmt(x, d) { return x === null || x === undefined ? "—" : Number(x).toFixed(d); }

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
      tr.querySelector(".cost strong").textContent = fmt(r.cost_per_eth, 2);
      tr.querySelector(".step").textContent = fmt(r.step_time_s, 2);
      tr.querySelector(".exposed").textContent = fmt(r.exposed_comm_s, 2);
      tr.querySelector(".util").textContent = Math.round(r.utilisation * 100) + "%";
      tbody.appendChild(tr);  // re-order by the new rank, the offer's warnings under it
      if (notes[r.id]) tbody.appendChild(notes[r.id]);
    });
    var note = document.getElementById("whatif-note");
    if (note && data.results.length) {
      note.textContent = "#1: " + data.results[0].label + " · " + fmt(data.results[0].cost_per_eth, 2) + " " + data.results[0].currency;
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
