// Drag-and-drop onto the upload form's file input (progressive enhancement: the input works alone).
(function () {
  var zone = document.getElementById("dropzone");
  if (!zone) return;
  var input = zone.querySelector("input[type=file]");
  var list = document.getElementById("chosen");
  function show() {
    list.innerHTML = "";
    Array.prototype.forEach.call(input.files, function (f) {
      var li = document.createElement("li");
      li.textContent = f.name + " (" + Math.round(f.size / 1024) + " KB)";
      list.appendChild(li);
    });
  }
  ["dragenter", "dragover"].forEach(function (name) {
    zone.addEventListener(name, function (e) { e.preventDefault(); zone.classList.add("drag"); });
  });
  ["dragleave", "drop"].forEach(function (name) {
    zone.addEventListener(name, function (e) { e.preventDefault(); zone.classList.remove("drag"); });
  });
  zone.addEventListener("drop", function (e) {
    if (e.dataTransfer && e.dataTransfer.files.length) { input.files = e.dataTransfer.files; show(); }
  });
  input.addEventListener("change", show);
})();
