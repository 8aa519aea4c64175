// Poll the JSON status of unfinished exports and reload the list when one finishes.
(function () {
  const rows = Array.from(document.querySelectorAll("tr.export[data-finished='0']"));
  if (!rows.length) return;
  function poll() {
    Promise.all(rows.map((row) =>
      fetch(row.dataset.statusUrl, { credentials: "same-origin" }).then((r) => r.json()).then((s) => {
        const bar = row.querySelector(".progress > div");
        if (bar) bar.style.width = s.progress + "%";
        return s.finished;
      }).catch(() => false)
    )).then((finished) => {
      if (finished.some(Boolean)) window.location.reload();
      else window.setTimeout(poll, 1000);
    });
  }
  window.setTimeout(poll, 800);
})();
