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

  // Charts on phones: long offer names and titles would be clipped at 390 px. Axes make room
  // for their labels (automargin); on a narrow screen titles wrap, offer names are shortened
  // (the full name stays in the hover) and the toolbar, which covers titles, is hidden.
  var NARROW = 600;
  function shorten(text, n) { return text.length > n ? text.slice(0, n - 1) + "…" : text; }
  function wrap(text, n) {
    if (text.length <= n || text.indexOf(" ") < 0) return text;
    var lines = [""];
    text.split(" ").forEach(function (word) {
      var last = lines[lines.length - 1];
      if (last && (last + " " + word).length > n) lines.push(word);
      else lines[lines.length - 1] = last ? last + " " + word : word;
    });
    return lines.join("<br>");
  }
  function fitCharts(scope) {
    if (!window.Plotly) return;
    var narrow = window.innerWidth < NARROW;
    scope.querySelectorAll(".js-plotly-plot").forEach(function (gd) {
      if (!gd.layout) return;
      var layout = gd.layout;
      layout.xaxis = Object.assign(layout.xaxis || {}, { automargin: true });
      layout.yaxis = Object.assign(layout.yaxis || {}, { automargin: true });
      if (narrow) {
        var title = layout.title || {};
        if (typeof title === "string") title = { text: title };
        title.text = wrap(String(title.text || "").replace(/<br>/g, " "), 34);
        title.font = Object.assign(title.font || {}, { size: 13 });
        layout.title = title;
        layout.font = Object.assign(layout.font || {}, { size: 10 });
        layout.margin = Object.assign(layout.margin || {}, { l: 4, r: 12 });
        var trace = gd.data && gd.data[0];
        var names = trace && trace.orientation === "h" && Array.isArray(trace.y) &&
          !Array.isArray(trace.y[0]) ? trace.y : null;  // not the two-level tornado axis
        if (names) {
          Object.assign(layout.yaxis, {
            tickmode: "array", tickvals: names,
            ticktext: names.map(function (n) { return shorten(String(n), 18); })
          });
        }
        // the legend goes under the plot, where it cannot cover the wrapped title
        layout.legend = Object.assign(layout.legend || {},
          { orientation: "h", x: 0, xanchor: "left", y: -0.3, yanchor: "top" });
        gd.data.forEach(function (t) {  // point labels point inwards: none cut at the edges
          if (t.type !== "scatter" || !t.text || !Array.isArray(t.x) || !t.x.length) return;
          var xs = t.x.map(function (x) { return Math.log(Math.max(Number(x), 1e-9)); });
          var lo = Math.min.apply(null, xs), hi = Math.max.apply(null, xs);
          var all = layout.xaxis.range;  // the axis' own span when the figure sets one
          if (Array.isArray(all)) { lo = all[0] * Math.LN10; hi = all[1] * Math.LN10; }
          t.textposition = xs.map(function (x) {
            return x - lo > (hi - lo) / 2 ? "top left" : "top right";
          });
        });
      }
      Plotly.react(gd, gd.data, layout,
        { displaylogo: false, responsive: true, displayModeBar: !narrow });
    });
  }
  // The figures come as JSON data blocks (stored by the ranking job, or computed for a what-if):
  // each `.chart-figure` box is drawn from its block; no inline script runs.
  function drawFigures(scope) {
    if (!window.Plotly) return Promise.resolve();
    var drawn = [];
    scope.querySelectorAll(".chart-figure").forEach(function (box) {
      var block = document.getElementById(box.dataset.figure);
      if (!block || box.dataset.drawn) return;
      var figure = JSON.parse(block.textContent);
      box.dataset.drawn = "1";
      drawn.push(Plotly.newPlot(box, figure.data || [], figure.layout || {},
        { displaylogo: false, responsive: true }));
    });
    return Promise.all(drawn);
  }
  // the saved run's section as served (before drawing), for the what-if's Reset
  var section = document.getElementById("finished-section");
  var saved = section ? section.innerHTML : "";
  drawFigures(root).then(function () { fitCharts(root); });

  // What-if: the server computes the scenario as it computes a run (same code path) and renders
  // the run page's own finished section; it replaces the saved one, and Reset puts it back.
  var box = document.getElementById("whatif");
  if (!box || !section) return;
  var banner = document.getElementById("scenario-banner");
  var bannerText = document.getElementById("scenario-text");
  var saveForm = document.getElementById("scenario-save");
  if (saveForm && root.dataset.canWrite !== "1") { saveForm.remove(); saveForm = null; }
  if (saveForm) {  // the section is cached for every user: take this page's own CSRF token
    var token = document.querySelector("input[name=csrfmiddlewaretoken]");
    if (token) saveForm.appendChild(token.cloneNode());
  }
  var timer = null;
  var asked = 0;

  // A section set by innerHTML brings its figures as data blocks: draw them, then fit them.
  function swap(html) {
    section.innerHTML = html;
    drawFigures(section).then(function () { fitCharts(section); });
  }

  function inputs() { return box.querySelectorAll("input[type=range]"); }

  function showScenario(text) {
    if (!banner) return;
    banner.hidden = !text;
    bannerText.textContent = text || "";
    root.dataset.scenario = text || "";
  }

  function recompute() {
    var params = new URLSearchParams();
    inputs().forEach(function (input) {
      params.set(input.name, input.value);
      input.nextElementSibling.textContent = input.value;
      if (saveForm) saveForm.querySelector("input[name='" + input.name + "']").value = input.value;
    });
    var mine = ++asked;
    section.classList.add("loading");
    fetch(root.dataset.whatifUrl + "?" + params.toString(), { credentials: "same-origin" })
      .then(function (r) { return r.json(); })
      .then(function (data) {
        if (mine !== asked) return;  // a later move is on its way
        section.classList.remove("loading");
        if (data.is_saved) { swap(saved); showScenario(""); return; }  // back at the saved run
        if (data.refused) {  // too many offers to compute here: saving it runs the job
          var note = document.getElementById("whatif-note");
          if (note) note.textContent = (data.problems || []).join(" ");
          showScenario(data.scenario_text || "—");
          return;
        }
        swap(data.html);
        showScenario(data.scenario_text || "—");
      })
      .catch(function () { section.classList.remove("loading"); });
  }

  function reset() {
    asked++;
    inputs().forEach(function (input) {
      input.value = input.dataset.saved;
      input.nextElementSibling.textContent = input.dataset.saved;
    });
    section.classList.remove("loading");
    swap(saved);
    showScenario("");
  }

  box.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(recompute, 150);
  });
  var resetButton = document.getElementById("scenario-reset");
  if (resetButton) resetButton.addEventListener("click", reset);
})();
