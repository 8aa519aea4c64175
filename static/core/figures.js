// Every page: draw each figure box (.chart-figure) from its JSON data block with plotly.js
// (core/figures.py). No inline script: the Content-Security-Policy allows this file only.
(function () {
  "use strict";
  function draw() {
    if (!window.Plotly) return;
    document.querySelectorAll(".chart-figure").forEach(function (box) {
      var block = document.getElementById(box.dataset.figure);
      if (!block || box.dataset.drawn) return;  // ranking.js draws its own page's figures
      box.dataset.drawn = "1";
      var figure = JSON.parse(block.textContent);
      Plotly.newPlot(box, figure.data || [], figure.layout || {}, figure.config || {});
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", draw);
  else draw();
})();
