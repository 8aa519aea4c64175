// A <select data-autosubmit> sends its form when changed (the language switch, the compare
// page's workload): no inline onchange handler, which the Content-Security-Policy refuses.
(function () {
  "use strict";
  document.addEventListener("change", function (event) {
    var el = event.target;
    if (el && el.matches && el.matches("select[data-autosubmit]") && el.form) el.form.submit();
  });
})();
