// Poll the run's status endpoint until parsing is finished, then reload to show the charts.
(function () {
  var box = document.getElementById("run-progress");
  if (!box) return;
  var bar = box.querySelector(".progress > div");
  function poll() {
    fetch(box.dataset.statusUrl, { credentials: "same-origin" })
      .then(function (r) { return r.json(); })
      .then(function (s) {
        bar.style.width = s.progress + "%";
        if (s.finished) { window.location.reload(); } else { setTimeout(poll, 1500); }
      })
      .catch(function () { setTimeout(poll, 5000); });
  }
  setTimeout(poll, 1000);
})();
